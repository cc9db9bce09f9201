//! Multi-line events: a Java stack trace (or any event that spans lines) becomes one
//! event, not one per line.
//!
//! Why it exists: a file appender writes an exception as a header line and many `\tat`
//! lines; shipped line by line, they cannot be searched or alerted on as one event. An
//! [`Assembler`] per file joins lines into events by a start-of-event pattern (a line
//! matching it begins a new event) or a continuation pattern (a line matching it belongs
//! to the event before), with presets for Java stack traces and for lines that begin
//! with a timestamp. The regular expressions are `regex-lite`'s (rust-lang, no
//! dependencies, linear time: no pattern can make matching blow up on hostile input).
//!
//! Must never: hold more than `max_lines` lines or `max_bytes` bytes of one event (it is
//! split and counted), hold an event for longer than `timeout` once its file is quiet
//! (the last stack trace of a file is shipped, not kept for ever), or lose track of the
//! offset its held lines begin at (a checkpoint must stay before them).

use std::time::{Duration, Instant};

use regex_lite::Regex;

/// Java: a line that is indented (`\tat ...`, `\t... 5 more`), starts with `Caused by:`
/// or `Suppressed:`, or is an exception's header (a qualified class name ending in
/// `Exception`, `Error` or `Throwable`, as `printStackTrace` and Log4j's `%throwable`
/// write it after the log line) continues the event before it.
pub const JAVA_CONTINUATION: &str = r"^(\s|Caused by:|Suppressed:|\.\.\. \d+ more|([\w$]+\.)+[\w$]*(Exception|Error|Throwable)(:|$))";
/// A line that begins with an ISO-8601 date and time (optionally in brackets) starts a
/// new event.
pub const TIMESTAMP_START: &str = r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}";

/// How lines are grouped.
#[derive(Clone, Debug)]
pub enum Rule {
    /// A line matching begins a new event; others continue the current one.
    Start(Regex),
    /// A line matching continues the current event; others begin a new one.
    Continue(Regex),
}

/// Multi-line settings of a followed file.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The grouping rule.
    pub rule: Rule,
    /// Most lines of one event.
    pub max_lines: usize,
    /// Most bytes of one event.
    pub max_bytes: usize,
    /// How long an event is held waiting for more lines.
    pub timeout: Duration,
}

impl Rule {
    /// A rule from a preset name (`java`, `timestamp`) or `start:REGEX` /
    /// `continue:REGEX`; an error says what is wrong and what is accepted (without the
    /// option's name: the caller says where the value came from).
    pub fn parse(spec: &str) -> Result<Rule, String> {
        let compile =
            |p: &str| Regex::new(p).map_err(|e| format!("invalid regular expression ({e})"));
        Ok(match spec {
            "java" => Rule::Continue(compile(JAVA_CONTINUATION)?),
            "timestamp" => Rule::Start(compile(TIMESTAMP_START)?),
            _ => match spec.split_once(':') {
                Some(("start", p)) => Rule::Start(compile(p)?),
                Some(("continue", p)) => Rule::Continue(compile(p)?),
                _ => return Err("expected java, timestamp, start:REGEX or continue:REGEX".into()),
            },
        })
    }
}

impl Settings {
    /// Settings of `rule` (`Rule::parse`), at least one line and one byte per event.
    pub fn new(rule: Rule, max_lines: usize, max_bytes: usize, timeout: Duration) -> Settings {
        Settings {
            rule,
            max_lines: max_lines.max(1),
            max_bytes: max_bytes.max(1),
            timeout,
        }
    }
}

/// One joined event.
#[derive(Debug, PartialEq, Eq)]
pub struct Event {
    /// Its lines joined by `\n` (at most `max_bytes`).
    pub text: Vec<u8>,
    /// How many lines it joined.
    pub lines: usize,
    /// The offset just past its last line.
    pub end: u64,
    /// True when it was ended by `max_lines` or `max_bytes` rather than by the next event.
    pub split: bool,
    /// Bytes of its lines left out: cut while reading (over `max_line`) or past
    /// `max_bytes` (a single line longer than the event may be). Shipped as
    /// `logship.truncated_bytes`.
    pub cut_bytes: usize,
}

/// Joins one file's lines into events.
pub struct Assembler {
    text: Vec<u8>,
    /// Bytes of the held lines left out (see [`Event::cut_bytes`]).
    cut: usize,
    lines: usize,
    end: u64,
    since: Option<Instant>,
}

impl Assembler {
    /// An assembler holding nothing.
    pub fn new() -> Assembler {
        Assembler {
            text: Vec::new(),
            cut: 0,
            lines: 0,
            end: 0,
            since: None,
        }
    }

    /// True when no line is held.
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// Adds a line ending at offset `end` (`line`: what was read of it, `real_len` bytes
    /// long in the file); returns the events it completed (the one it ended, and itself
    /// when the limits end it at once), in order.
    pub fn push(
        &mut self,
        s: &Settings,
        line: &[u8],
        real_len: usize,
        end: u64,
        now: Instant,
        out: &mut Vec<Event>,
    ) {
        let text = crate::lines::utf8_lossy(line);
        let starts = match &s.rule {
            Rule::Start(re) => re.is_match(&text),
            Rule::Continue(re) => !re.is_match(&text),
        };
        if starts || self.is_empty() {
            if let Some(e) = self.take(false) {
                out.push(e);
            }
        } else if self.lines >= s.max_lines || self.text.len() + 1 + line.len() > s.max_bytes {
            if let Some(e) = self.take(true) {
                out.push(e);
            }
        }
        if !self.is_empty() {
            self.text.push(b'\n');
        }
        let room = s.max_bytes.saturating_sub(self.text.len());
        let kept = line.len().min(room);
        self.text.extend_from_slice(&line[..kept]);
        self.cut += real_len.max(line.len()) - kept;
        self.lines += 1;
        self.end = end;
        self.since.get_or_insert(now);
    }

    /// The held event, if it has waited `timeout` since its first line.
    pub fn stale(&mut self, s: &Settings, now: Instant) -> Option<Event> {
        match self.since {
            Some(t) if now.duration_since(t) >= s.timeout => self.take(false),
            _ => None,
        }
    }

    /// The held event, if any (the file is finished with, or logship is stopping).
    pub fn take(&mut self, split: bool) -> Option<Event> {
        if self.is_empty() {
            return None;
        }
        let event = Event {
            text: std::mem::take(&mut self.text),
            lines: self.lines,
            end: self.end,
            split,
            cut_bytes: std::mem::take(&mut self.cut),
        };
        self.lines = 0;
        self.since = None;
        Some(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(s: &Settings, input: &str) -> Vec<(String, usize, bool)> {
        let mut a = Assembler::new();
        let mut out = Vec::new();
        let now = Instant::now();
        let mut end = 0;
        for line in input.lines() {
            end += line.len() as u64 + 1;
            a.push(s, line.as_bytes(), line.len(), end, now, &mut out);
        }
        out.extend(a.take(false));
        out.into_iter()
            .map(|e| (String::from_utf8(e.text).unwrap(), e.lines, e.split))
            .collect()
    }

    #[test]
    fn java_traces_with_causes_and_suppressed_become_one_event_each() {
        let s = Settings::new(
            Rule::parse("java").unwrap(),
            500,
            1 << 20,
            Duration::from_secs(1),
        );
        let input = "2026-12-01 12:00:00 INFO started\n\
            2026-12-01 12:00:01 ERROR failed\n\
            java.lang.IllegalStateException: boom\n\
            \tat a.B.c(B.java:10)\n\
            \tSuppressed: java.io.IOException: close\n\
            \t\tat a.B.d(B.java:20)\n\
            Caused by: java.lang.NullPointerException\n\
            \tat a.B.e(B.java:30)\n\
            \t... 5 more\n\
            2026-12-01 12:00:02 INFO next\n";
        let got = join(&s, input);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0].1, 1);
        // The log line and its trace are one event.
        assert!(got[1].0.starts_with(
            "2026-12-01 12:00:01 ERROR failed\njava.lang.IllegalStateException: boom\n\tat a.B.c"
        ));
        assert!(got[1].0.ends_with("\t... 5 more"));
        assert_eq!(got[1].1, 8);
        assert_eq!(got[2].0, "2026-12-01 12:00:02 INFO next");
    }

    #[test]
    fn timestamp_starts_events_and_limits_split_them() {
        let s = Settings::new(
            Rule::parse("timestamp").unwrap(),
            3,
            1 << 20,
            Duration::from_secs(1),
        );
        let got = join(
            &s,
            "2026-12-01T12:00:00Z a\nb\nc\nd\ne\n[2026-12-01 12:00:01] f\n",
        );
        assert_eq!(
            got,
            [
                ("2026-12-01T12:00:00Z a\nb\nc".to_owned(), 3, true),
                ("d\ne".to_owned(), 2, false),
                ("[2026-12-01 12:00:01] f".to_owned(), 1, false),
            ]
        );
        let small = Settings::new(
            Rule::parse("start:^S").unwrap(),
            100,
            5,
            Duration::from_secs(1),
        );
        let got = join(&small, "S1\nxx\nyyyyyyyy\n");
        assert!(got.iter().all(|(t, _, _)| t.len() <= 5), "{got:?}");
        assert!(Rule::parse("nope").is_err());
        assert!(Rule::parse("start:(").unwrap_err().contains("invalid"));
    }

    #[test]
    fn a_quiet_file_gets_its_last_event_after_the_timeout() {
        let s = Settings::new(
            Rule::parse("java").unwrap(),
            500,
            1 << 20,
            Duration::from_millis(100),
        );
        let mut a = Assembler::new();
        let t0 = Instant::now();
        let mut out = Vec::new();
        a.push(&s, b"java.lang.Error: x", 18, 19, t0, &mut out);
        a.push(&s, b"\tat a.b(C.java:1)", 17, 37, t0, &mut out);
        assert!(out.is_empty());
        assert!(a.stale(&s, t0 + Duration::from_millis(50)).is_none());
        let e = a
            .stale(&s, t0 + Duration::from_millis(100))
            .expect("flushed");
        assert_eq!((e.lines, e.end), (2, 37));
        assert!(a.is_empty());
    }

    #[test]
    fn bytes_left_out_of_an_event_are_counted_whether_cut_at_read_or_past_max_bytes() {
        let s = Settings::new(
            Rule::parse("java").unwrap(),
            100,
            40,
            Duration::from_secs(5),
        );
        let (mut a, mut out, t0) = (Assembler::new(), Vec::new(), Instant::now());
        // A header of 60 bytes: 40 kept.
        a.push(&s, &[b'x'; 60], 60, 61, t0, &mut out);
        // A continuation read cut (30 of its 90 bytes read): no room left, all 90 out.
        a.push(&s, &[b'\t'; 30], 90, 152, t0, &mut out);
        out.extend(a.take(false));
        // Its limit split the event: the continuation is an event of its own (30 kept).
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!((out[0].text.len(), out[0].cut_bytes), (40, 20));
        assert_eq!((out[1].text.len(), out[1].cut_bytes), (30, 60));
        // The next event starts with nothing counted.
        a.push(&s, b"java.lang.Error: y", 18, 171, t0, &mut out);
        assert_eq!(a.take(false).map(|e| e.cut_bytes), Some(0));
    }
}
