//! `logship ship --follow PATTERN...`: its flags and signal helpers; the command itself
//! (follower, checkpointer, listeners and pipeline in one service loop) is
//! `crate::listen::cli`.
//!
//! Why it exists: it wires the follower, the checkpointer and the pipeline together the
//! way `ship` does for stdin: signals (SIGTERM/SIGINT stop; a second one cuts the
//! shutdown short; SIGHUP matches the patterns again and goes on), one summary line,
//! `--stats-json`, and the exit code (0 all delivered, 1 some lost, 3 none lost but some
//! spilled, 2 bad usage). Following never ends by itself: a service manager stops it.
//!
//! Must never: write a checkpoint past what shutdown settled, start when a pattern is
//! invalid (exit 2, naming it), fail to start because of the checkpoint file, or stop
//! (or lose a line) on SIGHUP.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::Args;
use nix::sys::signal::{SigSet, Signal};

use super::StartAt;

/// Options of `ship --follow` (ignored without it). Each overrides its key in the config
/// file's `[follow]` section (see `settings.rs`, which holds the defaults).
#[derive(Args, Debug, Clone)]
pub struct FollowArgs {
    /// With --follow: where to start in a file seen at start-up that has no checkpoint.
    /// [default: beginning]
    #[arg(long, value_enum)]
    pub start_at: Option<StartAt>,

    /// With --follow: the checkpoint file. [default: beside the spill directory,
    /// `<spill_dir>.follow.json`]
    #[arg(long, value_name = "FILE", conflicts_with = "no_checkpoint")]
    pub checkpoint: Option<PathBuf>,

    /// With --follow: keep no checkpoint (a restart starts from --start-at again).
    #[arg(long)]
    pub no_checkpoint: bool,

    /// With --follow: how often patterns are matched again and idle files checked.
    /// [default: 250]
    #[arg(long, value_name = "MS")]
    pub poll_interval_ms: Option<u64>,

    /// With --follow: how often the checkpoint is brought up to date (after a flush).
    /// [default: 1000]
    #[arg(long, value_name = "MS")]
    pub checkpoint_interval_ms: Option<u64>,

    /// With --follow: how long a rotated-away or deleted file is still read.
    /// [default: 1000]
    #[arg(long, value_name = "MS")]
    pub rotate_wait_ms: Option<u64>,

    /// With --follow: most files open at once (more matching files wait their turn).
    /// [default: 256]
    #[arg(long, value_name = "N")]
    pub max_open_files: Option<u64>,

    /// With --follow: join multi-line events: `java` (stack traces: indented lines and
    /// `Caused by:` continue the event before), `timestamp` (a line starting with an
    /// ISO-8601 date-time starts an event), `start:REGEX` or `continue:REGEX`.
    #[arg(long, value_name = "RULE")]
    pub multiline: Option<String>,

    /// With --multiline: most lines of one event (longer ones are split, and counted).
    /// [default: 500]
    #[arg(long, value_name = "N")]
    pub multiline_max_lines: Option<u64>,

    /// With --multiline: how long an event waits for its next line before it is shipped.
    /// [default: 1000]
    #[arg(long, value_name = "MS")]
    pub multiline_timeout_ms: Option<u64>,
}

/// The checkpoint file used when none is configured: beside the spill directory,
/// `<spill_dir>.follow.json`.
pub fn default_checkpoint(config: &logship::Config) -> PathBuf {
    let spill = config
        .spill_dir
        .clone()
        .unwrap_or_else(|| logship::default_spill_dir(config.service.as_deref()));
    let mut name = spill.file_name().unwrap_or_default().to_os_string();
    name.push(".follow.json");
    spill.with_file_name(name)
}

/// Blocks SIGHUP in the calling thread, and so in every thread it starts later (they
/// inherit the mask): the termination handler never sees it, [`wait_for_sighup`] takes it.
pub(crate) fn block_sighup() -> nix::Result<SigSet> {
    let mut set = SigSet::empty();
    set.add(Signal::SIGHUP);
    set.thread_block()?;
    Ok(set)
}

/// Starts the thread that turns each SIGHUP into a rescan: the patterns are matched again
/// at once (new files opened, files whose path now names another file or nothing read to
/// their end and closed), and following goes on. It lives until the process exits.
pub(crate) fn wait_for_sighup(
    set: SigSet,
    rescan: Arc<AtomicBool>,
    counters: Arc<super::Counters>,
) {
    let started = std::thread::Builder::new()
        .name("logship-follow-sighup".into())
        .spawn(move || {
            while let Ok(Signal::SIGHUP) = set.wait() {
                let n = counters.rescans.fetch_add(1, Ordering::Relaxed) + 1;
                rescan.store(true, Ordering::Release);
                eprintln!("logship: SIGHUP (rescan {n}): matching the patterns again and reopening what changed; following goes on");
            }
        });
    if let Err(e) = started {
        eprintln!("logship: warning: cannot start the SIGHUP thread ({e}); SIGHUP is ignored (the patterns are still matched every --poll-interval-ms)");
    }
}
