//! Fuzz target `retry_after`: the checks are in `checks/mod.rs` (`checks::retry_after`).
#![no_main]

#[path = "../../crates/logship-cli/src/lines.rs"]
#[allow(dead_code)]
mod lines;
#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::retry_after(data));
