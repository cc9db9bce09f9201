//! Fuzz target `syslog_message`: the checks are in `checks/mod.rs` (`checks::syslog_message`).
#![no_main]

#[path = "../../crates/logship-cli/src/lines.rs"]
#[allow(dead_code)]
mod lines;
#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::syslog_message(data));
