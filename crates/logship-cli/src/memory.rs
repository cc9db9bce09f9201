//! This process's resident memory, for the demo's and the lab's reports.
//!
//! Why it exists: both report how much memory logging cost; both read the same Linux
//! counters the same way. Elsewhere (or where `/proc` is unreadable) they read 0.

/// A `/proc/self/status` counter in kB (`VmHWM`, `VmRSS`), as bytes; 0 where unknown.
fn status_bytes(field: &str) -> u64 {
    proc_status_bytes("self", field).unwrap_or(0)
}

/// A counter in kB of `/proc/PROCESS/status` (`PROCESS`: a pid or `self`; `field` with its
/// colon, `VmRSS:`), as bytes; `None` where the process is gone or the field unreadable.
/// Also for the lab's and the soak's children.
pub fn proc_status_bytes(process: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())?;
    Some(kb * 1024)
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
