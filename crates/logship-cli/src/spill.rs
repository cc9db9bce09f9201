//! `logship spill`: look at, check, replay or remove a spill directory.
//!
//! Why it exists: after an outage an operator wants to know what is waiting on disk
//! (`ls`), whether it is intact (`verify`), to ship it now without starting the
//! application (`replay`, with the same vendor options as `ship`), or to throw it away
//! (`rm`). `ls` and `verify` take no lock and change nothing, so they are safe next to a
//! running process; `replay` and `rm` take the directory's lock.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use logship::{inspect, remove_all, Builder, SegmentInfo};

use logship_cli::exit::Failure;
use logship_cli::units;

use crate::settings::{PipelineKeys, Settings, SettingsArgs};

/// The spill subcommands.
#[derive(Debug, Subcommand)]
pub enum SpillCommand {
    /// List segments: records, bytes, oldest and newest event, dead letters, and
    /// quarantined segments (damaged header, never replayed).
    Ls(DirArgs),
    /// Check every record's checksum; exit 1 if anything is damaged or quarantined.
    Verify(DirArgs),
    /// Ship everything spilled now, with the same vendor options as `logship ship`.
    Replay(Box<ReplayArgs>),
    /// Delete every segment (quarantined ones too), dead letter and the replay progress.
    Rm(DirArgs),
}

/// A spill directory.
#[derive(Debug, Args)]
pub struct DirArgs {
    /// The spill directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// Options of `logship spill replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The spill directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,

    /// Also ship the dead letters (events an intake once rejected for good).
    #[arg(long)]
    pub dead_letters: bool,

    /// How long to keep trying before giving up (what is left stays on disk).
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub timeout_secs: u64,

    /// `--config` and the pipeline keys' flags (vendor, endpoint, key...).
    #[command(flatten)]
    pub settings: SettingsArgs<PipelineKeys>,
}

/// Runs a `logship spill` subcommand.
pub fn run(command: SpillCommand) -> Result<ExitCode, Failure> {
    match command {
        SpillCommand::Ls(args) => ls(&args.dir),
        SpillCommand::Verify(args) => verify(&args.dir),
        SpillCommand::Replay(args) => replay(*args),
        SpillCommand::Rm(args) => {
            let removed = remove_all(&args.dir).map_err(|e| Failure::runtime(e.to_string()))?;
            println!("removed {removed} files from {}", args.dir.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn segments(dir: &Path) -> Result<Vec<SegmentInfo>, Failure> {
    inspect(dir).map_err(|e| Failure::runtime(e.to_string()))
}

fn time(nanos: Option<u64>) -> String {
    nanos.map_or_else(|| "-".to_owned(), logship::rfc3339_millis)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn ls(dir: &Path) -> Result<ExitCode, Failure> {
    let (quarantined, segs): (Vec<_>, Vec<_>) =
        segments(dir)?.into_iter().partition(|s| s.quarantined);
    println!(
        "{:<28} {:>5} {:>9} {:>7} {:>7} {:>10}  {:<24}  {:<24}",
        "segment", "kind", "records", "acked", "corrupt", "bytes", "oldest event", "newest event"
    );
    for s in &segs {
        println!(
            "{:<28} {:>5} {:>9} {:>7} {:>7} {:>10}  {:<24}  {:<24}",
            file_name(&s.path),
            if s.dead_letter { "dead" } else { "spill" },
            s.records,
            s.acked,
            s.corrupt,
            units::bytes(s.bytes),
            time(s.oldest_ts_nanos),
            time(s.newest_ts_nanos)
        );
    }
    for s in &quarantined {
        let kind = if s.dead_letter {
            "quarantined dead letter"
        } else {
            "quarantined (damaged header)"
        };
        // Spans kind..corrupt, so the size stays in the bytes column.
        let (name, size) = (file_name(&s.path), units::bytes(s.bytes));
        println!("{name:<28} {kind:<31} {size:>10}");
    }
    let (live, dead): (Vec<_>, Vec<_>) = segs.iter().partition(|s| !s.dead_letter);
    let pending: u64 = live.iter().map(|s| s.records.saturating_sub(s.acked)).sum();
    let dead_records: u64 = dead.iter().map(|s| s.records).sum();
    let bytes: u64 = segs.iter().map(|s| s.bytes).sum();
    println!(
        "{} segments, {pending} events waiting for replay, {dead_records} dead letters, {} on disk",
        segs.len(),
        units::bytes(bytes)
    );
    print_quarantined(dir, &quarantined);
    Ok(ExitCode::SUCCESS)
}

/// The summary of the quarantined segments, with what to do about them. Prints nothing
/// when there are none.
fn print_quarantined(dir: &Path, quarantined: &[SegmentInfo]) {
    if quarantined.is_empty() {
        return;
    }
    let bytes: u64 = quarantined.iter().map(|s| s.bytes).sum();
    println!(
        "{} quarantined segment(s), {} on disk: header damaged, never replayed",
        quarantined.len(),
        units::bytes(bytes)
    );
    println!(
        "  copy them elsewhere to keep them; `logship spill rm --dir {}` deletes them \
         together with every other segment",
        dir.display()
    );
}

fn verify(dir: &Path) -> Result<ExitCode, Failure> {
    let (quarantined, segs): (Vec<_>, Vec<_>) =
        segments(dir)?.into_iter().partition(|s| s.quarantined);
    let mut damaged = 0;
    for s in segs.iter().filter(|s| s.corrupt > 0) {
        damaged += s.corrupt;
        println!(
            "{}: {} damaged region(s), {} intact records",
            s.path.display(),
            s.corrupt,
            s.records
        );
    }
    // Out of replay's way already, but damage nobody has dealt with yet.
    for s in &quarantined {
        println!(
            "{}: quarantined (header damaged), never replayed",
            s.path.display()
        );
    }
    let records: u64 = segs.iter().map(|s| s.records).sum();
    let quarantine = if quarantined.is_empty() {
        String::new()
    } else {
        format!(
            "; {} quarantined segment(s) (`logship spill rm` deletes them)",
            quarantined.len()
        )
    };
    if damaged == 0 && quarantined.is_empty() {
        println!(
            "{} segments, {records} records: every checksum is good",
            segs.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "{} segments, {records} intact records, {damaged} damaged region(s) (replay skips them){quarantine}",
            segs.len()
        );
        Ok(ExitCode::FAILURE)
    }
}

fn replay(args: ReplayArgs) -> Result<ExitCode, Failure> {
    if args.settings.was_given("spill_dir") || args.settings.was_given("spill_enabled") {
        return Err(Failure::usage(
            "--spill-dir/--no-spill: logship spill replay uses --dir",
        ));
    }
    let mut dirs = vec![args.dir.clone()];
    if args.dead_letters {
        dirs.push(args.dir.join("dead"));
    }
    let timeout = Duration::from_secs(args.timeout_secs);
    let config = Settings::pipeline(&args.settings)?.config;
    let mut all_done = true;
    for dir in dirs {
        let builder = Builder::from_config(config.clone()).spill_dir(dir.clone());
        let (logship, guard) = builder.build()?;
        let drained = logship.wait_spill_drained(timeout);
        let report = logship.shutdown(logship.shutdown_timeout());
        drop(guard);
        let s = &report.stats;
        let mut rejected = String::new();
        if s.dead_lettered > 0 {
            rejected = format!(
                "; {} rejected for good by the intake and moved to {}",
                s.dead_lettered,
                dir.join("dead").display()
            );
        }
        if s.events_failed > 0 {
            rejected.push_str(&format!(
                "; {} rejected or failed and not kept",
                s.events_failed
            ));
        }
        eprintln!(
            "logship: replayed {} events from {}; {} still on disk{rejected}{}",
            s.events_replayed,
            dir.display(),
            s.spill_pending,
            s.last_error
                .as_ref()
                .map(|e| format!("; last error: {e}"))
                .unwrap_or_default()
        );
        // A replay that moved events to dead letters (or lost them) did not deliver them.
        all_done &= drained && s.spill_pending == 0 && s.events_failed == 0 && s.dead_lettered == 0;
    }
    Ok(if all_done {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
