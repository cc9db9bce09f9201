//! Fuzz target `spill_ack`: the checks are in `checks/mod.rs` (`checks::spill_ack`).
#![no_main]

#[path = "../../crates/logship-cli/src/lines.rs"]
#[allow(dead_code)]
mod lines;
#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::spill_ack(data));
