//! Human-readable byte sizes and durations for summaries and tables.

/// `n` bytes as `512 B`, `120.0 KiB`, `3.4 MiB`, ...
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = "B";
    for u in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    format!("{value:.1} {unit}")
}

/// A duration given in nanoseconds as `850 ns`, `0.8 us`, `12.3 ms` or `1.20 s`.
pub fn nanos(ns: u64) -> String {
    let v = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.1} us", v / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.1} ms", v / 1e6)
    } else {
        format!("{:.2} s", v / 1e9)
    }
}

/// `raw / compressed` as `8.4x`, or `-` when nothing was compressed.
pub fn ratio(raw: u64, compressed: u64) -> String {
    if compressed == 0 {
        "-".to_owned()
    } else {
        format!("{:.1}x", raw as f64 / compressed as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(bytes(10), "10 B");
        assert_eq!(bytes(122_880), "120.0 KiB");
        assert_eq!(bytes(3 * 1024 * 1024), "3.0 MiB");
        assert_eq!(nanos(850), "850 ns");
        assert_eq!(nanos(800), "800 ns");
        assert_eq!(nanos(3_100), "3.1 us");
        assert_eq!(nanos(12_300_000), "12.3 ms");
        assert_eq!(nanos(1_200_000_000), "1.20 s");
        assert_eq!(ratio(84, 10), "8.4x");
        assert_eq!(ratio(84, 0), "-");
    }
}
