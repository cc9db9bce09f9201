//! This process's resident memory, for the demo's and the lab's reports.
//!
//! Why it exists: both report how much memory logging cost; both read the same Linux
//! counters the same way. Elsewhere (or where `/proc` is unreadable) they read 0.

/// A `/proc/self/status` counter in kB (`VmHWM`, `VmRSS`), as bytes; 0 where unknown.
fn status_bytes(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Peak resident memory of this process so far (Linux `VmHWM`), bytes.
pub fn peak_rss_bytes() -> u64 {
    status_bytes("VmHWM:")
}

/// Resident memory of this process now (Linux `VmRSS`), bytes.
pub fn rss_bytes() -> u64 {
    status_bytes("VmRSS:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_resident_memory_and_a_peak_at_least_as_high() {
        let now = rss_bytes();
        assert!(now > 0, "VmRSS readable on Linux");
        assert!(peak_rss_bytes() >= now);
    }
}
