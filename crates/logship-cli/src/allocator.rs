//! glibc's allocator, told once at start-up to hand large blocks back to the system.
//!
//! Why it exists: "peak RSS under 100 MiB whatever the input" (docs/listen.md) failed on a
//! busy machine (100.4 MiB, and 101.4 MiB in a CI run) for 24 connections each sending a 6
//! MiB line. glibc serves a block of 128 KiB or more with its own mapping, returned to the
//! system on free, but raises that threshold to the size of each such block freed (up to
//! 32 MiB). After the first long line is freed, the next megabyte-sized buffers come from
//! the per-thread arenas, and what is freed there stays resident, more of it the more
//! threads run at once. Fixing the threshold at 1 MiB (`mallopt`, which also turns the
//! raising off) keeps blocks of 1 MiB or more out of the arenas: the same test peaked at
//! 60 to 77 MiB under the same load (87 to 100 MiB before). Smaller blocks, such as the
//! batches of usual events, stay in the arenas, as fast as before. Must never: run in a
//! process logship does not own (the library and the JVM appender leave the host's
//! allocator alone), or fail the start (a refusal leaves glibc's default).

/// The size from which glibc maps a block of its own (returned to the system on free).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 1 << 20;

/// Fixes glibc's mmap threshold at [`MMAP_THRESHOLD`]; elsewhere, nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn fix_the_mmap_threshold() {
    // SAFETY: `mallopt` only sets a parameter of glibc's allocator; it takes plain
    // integers, touches no memory of ours, and is called once before any other thread
    // starts. A refusal (it returns 0) leaves the default in place.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Fixes glibc's mmap threshold; elsewhere, nothing.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn fix_the_mmap_threshold() {}
