//! From lines to events: container decoding, partial-line joining, multi-line assembly,
//! the record, and the hand-over to the pipeline.
//!
//! Why it exists: every path that ships something from a followed file (a read turn, a
//! stale multi-line event, a rotated file's last partial line, shutdown) goes through
//! [`Emit`], so the one rule that makes checkpoints correct lives in one place: `pushed`
//! moves just past a line only once everything up to it was handed to the pipeline, and
//! once a line is not handed over (stopping), nothing after it is.
//!
//! Must never: drop a line because the queue stayed full (the record comes back and is
//! offered again), move `pushed` past a held or unfinished line, or block on anything but
//! the pipeline's queue.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use logship::{Logship, Offered, Record};

use super::container;
use super::counters::Counters;
use super::multiline::{Assembler, Event};
use super::options::{LineFormat, Options};
use super::tail::Line;
use crate::lines::room::LineBuf;
use crate::lines::{json_record_with, mark_read_cut, text_record_with_room};
use crate::signals::OFFER_WAIT;

/// Hands one file's lines to the pipeline (through its multi-line assembler, if any),
/// keeping `pushed` just past the last line handed over. Once one is not handed over
/// (stopping), none after it is, so `pushed` never skips a line.
pub(super) struct Emit<'a> {
    logship: &'a Logship,
    opts: &'a Options,
    counters: &'a Counters,
    stop: &'a AtomicBool,
    pub(super) pushed: u64,
    halted: bool,
    ready: Vec<Event>,
}

impl<'a> Emit<'a> {
    pub(super) fn new(
        logship: &'a Logship,
        opts: &'a Options,
        counters: &'a Counters,
        stop: &'a AtomicBool,
        pushed: u64,
    ) -> Emit<'a> {
        Emit {
            logship,
            opts,
            counters,
            stop,
            pushed,
            halted: false,
            ready: Vec::new(),
        }
    }

    /// One line read from the file.
    pub(super) fn line(&mut self, asm: &mut Pending, line: &Line<'_>, now: Instant) {
        if self.halted {
            return;
        }
        let decoded = match self.opts.format {
            LineFormat::Docker => Some(container::docker(line.bytes)),
            LineFormat::Cri => Some(container::cri(line.bytes)),
            LineFormat::Text | LineFormat::Json => None,
        };
        let joined;
        let mut joined_room = false;
        let (bytes, real_len, meta, parse_error) = match decoded {
            None => (line.bytes, line.real_len, None, false),
            Some(None) => {
                self.counters.parse_errors.fetch_add(1, Ordering::Relaxed);
                (line.bytes, line.real_len, None, true)
            }
            Some(Some(piece)) => {
                let join = &mut asm.join;
                if join.pieces == 0 {
                    join.stream = piece.stream;
                    join.time = piece.time_nanos;
                }
                join.pieces += 1;
                join.real += piece.message.len();
                // Joined up to the read cap, as a line is (past `max_line`, with room
                // from the pool, given back once the event is handed over).
                let (max, cap) = (self.opts.max_line, self.opts.read_cap);
                join.text.extend(&piece.message, max, cap);
                if piece.partial {
                    return; // the rest is in the next lines; `pushed` stays before
                }
                joined = std::mem::take(&mut join.text.bytes);
                joined_room = true;
                let real = std::mem::take(&mut join.real);
                join.pieces = 0;
                (
                    &joined[..],
                    real,
                    Some((std::mem::take(&mut join.stream), join.time.take())),
                    false,
                )
            }
        };
        match &self.opts.multiline {
            None => {
                let fields = &asm.fields;
                if push_text(self, bytes, real_len, fields, meta.as_ref(), parse_error) {
                    self.pushed = line.end;
                } else {
                    self.halted = true;
                }
            }
            Some(ml) => {
                // A multi-line event is text, held up to `max_line` (its lines too).
                // What is left out is counted once, on the event it belongs to.
                let bytes = &bytes[..bytes.len().min(self.opts.max_line)];
                let mut ready = std::mem::take(&mut self.ready);
                asm.ml.push(ml, bytes, real_len, line.end, now, &mut ready);
                for event in ready.drain(..) {
                    self.event(event, &asm.fields);
                }
                self.ready = ready;
            }
        }
        if joined_room {
            asm.join.text.clear(); // its bytes were handed over: the pool's room back
        }
    }

    /// One joined event.
    pub(super) fn event(&mut self, event: Event, fields: &[(&'static str, String)]) {
        if self.halted {
            return;
        }
        let real_len = event.text.len() + event.cut_bytes;
        if push_text(self, &event.text, real_len, fields, None, false) {
            self.pushed = event.end;
            if event.lines > 1 {
                self.counters
                    .multiline_events
                    .fetch_add(1, Ordering::Relaxed);
            }
            if event.split {
                self.counters
                    .multiline_split
                    .fetch_add(1, Ordering::Relaxed);
            }
        } else {
            self.halted = true;
        }
    }

    /// Ships what `asm` holds (an unfinished partial container line is left: the
    /// checkpoint stays before it).
    pub(super) fn flush(&mut self, asm: &mut Pending) {
        if let Some(event) = asm.ml.take(false) {
            self.event(event, &asm.fields);
        }
    }
}

/// Per-file state between lines.
pub(super) struct Pending {
    /// The multi-line assembler.
    pub(super) ml: Assembler,
    /// Partial container pieces being joined.
    pub(super) join: Join,
    /// Fields every event of the file gets (`log.file.path`, Kubernetes names).
    pub(super) fields: Vec<(&'static str, String)>,
}

impl Pending {
    pub(super) fn new(path: &Path) -> Pending {
        let mut fields = vec![("log.file.path", path.to_string_lossy().into_owned())];
        fields.extend(container::k8s_fields(path));
        Pending {
            ml: Assembler::new(),
            join: Join::default(),
            fields,
        }
    }
}

/// A container line being joined from partial pieces.
#[derive(Default)]
pub(super) struct Join {
    text: LineBuf,
    real: usize,
    pieces: usize,
    stream: String,
    time: Option<u64>,
}

/// Turns one line (or joined event) into an event and hands it to the pipeline, waiting
/// while the queue is full (the record a full queue gives back is offered again, never
/// dropped). Returns false when it was not handed over (the follower is stopping).
fn push_text(
    emit: &Emit<'_>,
    bytes: &[u8],
    real_len: usize,
    fields: &[(&'static str, String)],
    meta: Option<&(String, Option<u64>)>,
    parse_error: bool,
) -> bool {
    let (logship, opts, counters, stop) = (emit.logship, emit.opts, emit.counters, emit.stop);
    if stop.load(Ordering::Acquire) {
        return false;
    }
    let text = crate::lines::utf8_lossy(bytes);
    if text.trim().is_empty() {
        return true; // nothing to ship; the offset moves past it
    }
    let cut = real_len > bytes.len();
    let record = {
        // A JSON event gets the file's fields right after its message (never among the
        // last fields, which truncation may leave out); a text event after its message.
        let mut record = match opts.format {
            LineFormat::Json => json_record_with(&text, fields).unwrap_or_else(|| {
                let mut r = text_record_with_room(&text, fields_room(fields));
                add(&mut r, fields);
                r.field("logship.parse_error", true);
                r
            }),
            _ => {
                let mut r = text_record_with_room(&text, fields_room(fields));
                add(&mut r, fields);
                r
            }
        };
        if parse_error {
            record.field("logship.parse_error", true);
        }
        if let Some((stream, time)) = meta {
            if !stream.is_empty() {
                record.field("log.iostream", stream.as_str());
            }
            if let Some(nanos) = time {
                record.set_timestamp_nanos(*nanos);
            }
        }
        if matches!(text, std::borrow::Cow::Owned(_)) {
            record.mark_invalid_utf8();
        }
        if cut {
            mark_read_cut(&mut record, real_len, bytes.len());
        }
        record
    };
    if opts.format == LineFormat::Json && record.entries().any(is_parse_error) {
        counters.parse_errors.fetch_add(1, Ordering::Relaxed);
    }
    if !deliver(logship, record, stop, counters) {
        return false;
    }
    if cut {
        counters.cut(real_len);
    }
    counters.lines.fetch_add(1, Ordering::Relaxed);
    counters
        .bytes
        .fetch_add(real_len as u64 + 1, Ordering::Relaxed);
    true
}

/// Adds the file's `fields` to `record`.
fn add(record: &mut Record, fields: &[(&'static str, String)]) {
    for (key, value) in fields {
        record.field(key, value.as_str());
    }
}

/// Bytes the record needs for `fields` (each key and value with its length prefixes and
/// type tag, as `Record::field` stores them, rounded up).
fn fields_room(fields: &[(&'static str, String)]) -> usize {
    fields.iter().map(|(k, v)| k.len() + v.len() + 16).sum()
}

fn is_parse_error(e: logship::Entry<'_>) -> bool {
    matches!(e, logship::Entry::Field("logship.parse_error", _))
}

/// Offers `record` until the pipeline takes it: a full queue gives it back, and it is
/// offered again (not rebuilt, not counted as dropped) until the follower stops.
fn deliver(logship: &Logship, record: Record, stop: &AtomicBool, counters: &Counters) -> bool {
    let mut record = record;
    loop {
        match logship.offer(record, OFFER_WAIT) {
            Ok(()) => return true,
            // Shut down: the line stays after the checkpoint, for the next run.
            Err(Offered::Closed(_)) => {
                counters.not_taken.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            Err(Offered::Full(back)) => {
                if stop.load(Ordering::Acquire) {
                    counters.not_taken.fetch_add(1, Ordering::Relaxed);
                    return false;
                }
                counters.refusals_retried.fetch_add(1, Ordering::Relaxed);
                record = back;
            }
            // Held back by the user's burst limit, sampling or volume budget, or alone
            // larger than the queue holds (a poison line: retrying it would stall the
            // file forever), or a reason added later: counted by the pipeline, done with.
            Err(_) => return true,
        }
    }
}
