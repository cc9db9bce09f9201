//! An ordinary log4rs program. Which intake its logs reach is decided by `log4rs.yaml`
//! alone: the only logship-specific line is registering the appender kind.
//!
//! ```text
//! cargo run -p logship --example log4rs_app -- crates/logship/examples/log4rs.yaml
//! ```
//!
//! (The example file ships to the test intake on this machine:
//! `cargo run -p logship-intake -- --port 9000`.)

/// Logs a few events through log4rs configured from `config`, then flushes.
pub fn run(config: &std::path::Path, events: usize) -> Result<(), logship::log4rs::Log4rsError> {
    // Instead of `log4rs::init_file(config, Default::default())`:
    logship::log4rs::init_file(config)?;
    for i in 0..events {
        log::info!(target: "shop::orders", order_id = i, amount_cents = 1299; "order {i} placed");
    }
    log::warn!(target: "shop::payments", "payment provider slow");
    // log4rs does not flush on exit: flush before returning from main.
    log::logger().flush();
    Ok(())
}

#[allow(dead_code)]
fn main() {
    let config = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "crates/logship/examples/log4rs.yaml".to_owned());
    if let Err(e) = run(std::path::Path::new(&config), 10) {
        eprintln!("{e}");
        std::process::exit(2);
    }
}
