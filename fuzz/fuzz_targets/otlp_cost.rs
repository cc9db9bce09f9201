//! Fuzz target `otlp_cost`: the checks are in `checks/inputs.rs` (`checks::otlp_cost`).
#![no_main]

#[path = "../../crates/logship-cli/src/lines.rs"]
#[allow(dead_code)]
mod lines;
#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::otlp_cost(data));
