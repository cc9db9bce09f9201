//! The outcome of a `ship` run, however it read (stdin, `--input`, followed files,
//! listeners): the one summary line, `--stats-json`, and the exit code.
//!
//! Why it exists: every way of shipping ends the same way, and a user compares their
//! summaries and scripts their exit codes; one module says them, and the commands that
//! use it never import each other for it. Must never: call lost what was delivered,
//! spilled, held back by the user's own limits, or sent again by its sender; or let the
//! exit codes overlap with the code for bad options (2).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use logship::Stats;
use logship_cli::exit::{Failure, LOST, SPILLED};
use logship_cli::units;

/// How a run ended, as its exit code says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every event was delivered (or held back by the user's own limits): 0.
    Delivered,
    /// Nothing was lost, but some events wait in the spill directory for the next run
    /// (or `logship spill replay`): 3.
    Spilled,
    /// Some events were lost, or an input could not be read: 1.
    Lost,
}

impl Outcome {
    /// The process exit code of this outcome.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Delivered => ExitCode::SUCCESS,
            Outcome::Spilled => ExitCode::from(SPILLED),
            Outcome::Lost => ExitCode::from(LOST),
        }
    }
}

/// What the one summary line says.
pub struct Summary<'a> {
    /// Events read or received.
    pub read: u64,
    /// Lines that were not a JSON object (`--format json`).
    pub parse_errors: u64,
    /// Lines cut while reading (longer than `cut_limit`, or no room was left for them).
    pub cut_lines: u64,
    /// The real size of the largest of them, bytes.
    pub cut_largest: u64,
    /// The read cap: the longest line read whole, in bytes.
    pub cut_limit: u64,
    /// The pipeline's final counters.
    pub stats: &'a Stats,
    /// Whether request bodies were gzipped.
    pub gzip: bool,
    /// How long the run took.
    pub elapsed: Duration,
}

impl Summary<'_> {
    /// The line printed at the end (after `logship: `).
    pub fn line(&self) -> String {
        let Summary {
            read,
            parse_errors,
            cut_lines,
            stats: s,
            gzip,
            elapsed,
            ..
        } = *self;
        let bytes = if gzip {
            format!(
                "{} raw, {} gzip, {}",
                units::bytes(s.bytes_raw),
                units::bytes(s.bytes_compressed),
                units::ratio(s.bytes_raw, s.bytes_compressed)
            )
        } else {
            format!("{} uncompressed", units::bytes(s.bytes_raw))
        };
        let mut line = format!(
            "shipped {} of {read} events in {} request{} ({bytes}) in {:.2} s; {} dropped, {} failed",
            s.events_delivered,
            s.requests,
            if s.requests == 1 { "" } else { "s" },
            elapsed.as_secs_f64(),
            s.dropped(),
            s.events_failed,
        );
        if s.events_spilled > 0 {
            line.push_str(&format!(
                ", {} written to the spill directory for replay",
                s.events_spilled
            ));
        }
        if s.events_replayed > 0 {
            line.push_str(&format!(
                ", {} replayed from the spill directory",
                s.events_replayed
            ));
        }
        if s.already_delivered > 0 {
            line.push_str(&format!(
                ", {} already at the intake from an earlier attempt (not stored twice)",
                s.already_delivered
            ));
        }
        if s.over_budget() > 0 {
            line.push_str(&format!(
                ", {} held back by the volume budget ({} TRACE/DEBUG, {} sampled out, {} past the overdraft)",
                s.over_budget(),
                s.budget_dropped_level,
                s.budget_sampled_out,
                s.budget_dropped
            ));
        }
        let late = s.events_abandoned + s.pending();
        if late > 0 {
            line.push_str(&format!(
                ", {late} not delivered within the shutdown timeout"
            ));
        }
        if s.truncated > 0 || cut_lines > 0 {
            line.push_str(&format!(
                "; {} event{} truncated (logship.original_bytes has the real size)",
                s.truncated.max(cut_lines),
                if s.truncated.max(cut_lines) == 1 {
                    ""
                } else {
                    "s"
                }
            ));
            if cut_lines > 0 {
                line.push_str(&format!(
                    ", {cut_lines} of them cut while reading (the largest {}; the read cap is {})",
                    units::bytes(self.cut_largest),
                    units::bytes(self.cut_limit)
                ));
            }
        }
        if s.invalid_utf8 > 0 {
            line.push_str(&format!(
                "; {} event{} had invalid UTF-8 replaced by U+FFFD (logship.invalid_utf8)",
                s.invalid_utf8,
                if s.invalid_utf8 == 1 { "" } else { "s" }
            ));
        }
        if parse_errors > 0 {
            line.push_str(&format!(
                "; {parse_errors} line{} not a JSON object (shipped as text with logship.parse_error)",
                if parse_errors == 1 { " was" } else { "s were" }
            ));
        }
        if s.suppressed() > 0 {
            line.push_str(&format!(
                "; {} held back by your limits ({} by burst limits, {} sampled out)",
                s.suppressed(),
                s.burst_suppressed,
                s.sampled_out
            ));
        }
        if s.notices > 0 {
            line.push_str(&format!(
                "; {} logship notice{} shipped (logship.notice)",
                s.notices,
                if s.notices == 1 { "" } else { "s" }
            ));
        }
        if let Some(e) = &s.last_error {
            if s.health == logship::Health::Healthy && s.events_delivered + s.events_replayed > 0 {
                line.push_str(&format!("; last error (delivery recovered since): {e}"));
            } else {
                line.push_str(&format!("; last error: {e}"));
            }
        }
        line
    }
}

/// Of the events this run spilled, how many still wait in the spill directory at its end:
/// at most what the spill holds then (a run that spilled during an outage and replayed it
/// all before it stopped leaves nothing waiting, and must not say it does).
pub fn waiting_in_spill(s: &Stats) -> u64 {
    s.events_spilled.min(s.spill_pending)
}

/// The one plain outcome line printed after the summary (after `logship: `): delivered,
/// spilled and waiting, or lost with each reason and its count. `other` names losses
/// outside the pipeline (an input that could not be read, events a listener could not hand
/// over), each with its count. (The inputs that keep what the pipeline refuses get it back
/// from `offer`, uncounted as drops, so nothing here is subtracted.)
pub fn outcome_line(outcome: Outcome, s: &Stats, other: &[String]) -> String {
    let events = |n: u64| format!("{n} event{}", if n == 1 { "" } else { "s" });
    match outcome {
        Outcome::Delivered => {
            let mut line = "outcome: delivered: every event read was delivered".to_owned();
            if s.events_replayed > 0 && s.events_spilled == 0 {
                line.push_str(&format!(
                    ", and {} that earlier runs had spilled were replayed",
                    events(s.events_replayed)
                ));
            } else if s.events_replayed > 0 {
                line.push_str(&format!(
                    ", {} of them spilled during an outage and replayed",
                    events(s.events_spilled.min(s.events_replayed))
                ));
            }
            if s.spill_pending > 0 {
                line.push_str(&format!(
                    "; {} of earlier runs still wait in the spill directory",
                    events(s.spill_pending)
                ));
            }
            line
        }
        Outcome::Spilled => format!(
            "outcome: spilled: nothing lost; {} of this run wait in the spill directory for the next run (or `logship spill replay`)",
            events(waiting_in_spill(s).max(1))
        ),
        Outcome::Lost => {
            let mut reasons: Vec<String> = Vec::new();
            let mut add = |n: u64, why: &str| {
                if n > 0 {
                    reasons.push(format!("{} {why}", events(n)));
                }
            };
            add(
                s.dropped(),
                "refused at the log call (queue full, or shutdown begun)",
            );
            add(
                s.events_failed,
                "rejected by the intake, or undeliverable with no room in the spill",
            );
            add(
                s.events_abandoned + s.pending(),
                "not delivered within the shutdown timeout",
            );
            add(s.spill_dropped, "dropped from the spill at its size cap");
            reasons.extend(other.iter().cloned());
            if reasons.is_empty() {
                reasons.push("see the summary above".to_owned());
            }
            format!("outcome: lost: {}", reasons.join("; "))
        }
    }
}

/// Writes `--stats-json` (when given): the final stats, pretty-printed.
pub fn write_stats_json(path: Option<&Path>, stats: &Stats) -> Result<(), Failure> {
    let Some(path) = path else {
        return Ok(());
    };
    let json = serde_json::to_string_pretty(stats)
        .map_err(|e| Failure::runtime(format!("cannot encode the stats: {e}")))?;
    std::fs::write(path, json + "\n")
        .map_err(|e| Failure::runtime(format!("cannot write --stats-json {}: {e}", path.display())))
}
