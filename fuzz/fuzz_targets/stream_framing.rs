//! Fuzz target `stream_framing`: the checks are in `checks/mod.rs` (`checks::stream_framing`).
#![no_main]

#[path = "../../crates/logship-cli/src/lines.rs"]
#[allow(dead_code)]
mod lines;
#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::stream_framing(data));
