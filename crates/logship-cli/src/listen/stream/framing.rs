//! Cutting a TCP byte stream into events: newline or NUL delimited lines, and syslog's
//! RFC 6587 octet counting (`LEN SP MSG`) told apart from its LF/NUL trailer framing per
//! message by whether the message starts with a digit.
//!
//! Why it exists apart from the sockets: it is a pure, incremental function of untrusted
//! bytes (fed in whatever pieces the reads return), so it can be tested at every split
//! point without a connection.
//!
//! Must never: buffer more than `max` bytes of one event, or up to its read cap with room
//! borrowed from the process's pool (`crate::lines::room`; a longer event is cut, its
//! rest skipped to its delimiter or the end of its count), panic on any input, let a
//! garbage octet count swallow the stream (a count that is not one is read as the start
//! of a delimited event, flagged, and framing goes on), or believe a count the stream
//! ended before (the event is what arrived, flagged). It depends on nothing of the crate
//! but `crate::lines` (the fuzz target `stream_framing` compiles it by path beside it).

use crate::lines::room::{LineBuf, Room};

/// How a TCP connection's bytes are cut into events and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `tcp://`: lines ending in LF, CRLF or NUL; a JSON object line is read as a JSON
    /// event, any other line as text.
    Lines,
    /// `syslog+tcp://`: RFC 6587 octet counting or LF/NUL trailers, per message; each
    /// message parsed as RFC 5424 or RFC 3164.
    Syslog,
}

/// Smallest bound on a believable octet count, whatever `max_event_bytes` is.
const MIN_COUNT_LIMIT: usize = 64 * 1024;
/// A count above `max(max, MIN_COUNT_LIMIT) * COUNT_SLACK` is garbage, not a length: a
/// sender cut off from its peer mid-message, or not octet counting at all.
const COUNT_SLACK: usize = 16;

/// One event cut out of the stream.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Frame<'a> {
    /// The event's bytes, its delimiter (and a `\r` before an LF) trimmed, at most `max`.
    pub bytes: &'a [u8],
    /// Its real length before the cut (`> bytes.len()` when it was cut).
    pub real_len: usize,
    /// It started with digits that were not an octet count (syslog framing only): read
    /// as a delimited event instead, digits included; or its octet count claimed more
    /// bytes than arrived before the stream ended (`real_len` is then what arrived).
    pub bad_count: bool,
}

impl Frame<'_> {
    /// The event was longer than the cap and was cut.
    pub(crate) fn cut(&self) -> bool {
        self.real_len > self.bytes.len()
    }
}

/// Where the framer is within the current event.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Between events.
    Start,
    /// Reading what may be an octet count (its digits are kept in the buffer).
    Digits { value: usize, len: usize },
    /// Reading up to the next LF or NUL.
    Delimited {
        real: usize,
        bad: bool,
        last_cr: bool,
    },
    /// Reading the rest of a counted event.
    Counted { remaining: usize, real: usize },
}

/// The incremental framer of one connection.
pub(crate) struct Framer {
    syslog: bool,
    max: usize,
    cap: usize,
    count_limit: usize,
    buf: LineBuf,
    state: State,
}

impl Framer {
    /// A framer for `framing` keeping at most `max` bytes (at least 1) of each event
    /// (the fuzz target's and the tests' framer: the listener's borrows past `max`).
    #[allow(dead_code)]
    pub(crate) fn new(framing: Framing, max: usize) -> Framer {
        Framer::with_cap(framing, max, max, Room::shared())
    }

    /// A framer keeping `max` bytes of each event on its own, and up to `cap` with bytes
    /// borrowed from `room` (an event over `max` is read whole, to be parsed, when the
    /// pool lends the bytes).
    pub(crate) fn with_cap(
        framing: Framing,
        max: usize,
        cap: usize,
        room: &'static Room,
    ) -> Framer {
        let max = max.max(1);
        let cap = cap.max(max);
        let mut buf = LineBuf::new(room);
        buf.bytes.reserve(max.min(8 * 1024));
        Framer {
            syslog: matches!(framing, Framing::Syslog),
            max,
            cap,
            count_limit: max.max(MIN_COUNT_LIMIT).saturating_mul(COUNT_SLACK),
            buf,
            state: State::Start,
        }
    }

    /// True when no event is partly read.
    pub(crate) fn is_idle(&self) -> bool {
        matches!(self.state, State::Start)
    }

    /// Frames `input`, the next bytes of the stream, calling `emit` with each event it
    /// completes (empty events, such as `\n\0` or blank lines, are skipped).
    pub(crate) fn feed(&mut self, mut input: &[u8], emit: &mut dyn FnMut(Frame<'_>)) {
        while let Some(&first) = input.first() {
            match self.state {
                State::Start => {
                    self.buf.clear();
                    self.state = if self.syslog && (b'1'..=b'9').contains(&first) {
                        State::Digits { value: 0, len: 0 }
                    } else {
                        State::Delimited {
                            real: 0,
                            bad: false,
                            last_cr: false,
                        }
                    };
                }
                State::Digits { value, len } => {
                    let next = first
                        .is_ascii_digit()
                        .then(|| value * 10 + usize::from(first - b'0'))
                        .filter(|v| *v <= self.count_limit);
                    if let Some(value) = next {
                        self.keep(&input[..1]);
                        input = &input[1..];
                        self.state = State::Digits {
                            value,
                            len: len + 1,
                        };
                    } else if first == b' ' && value > 0 {
                        input = &input[1..];
                        self.buf.clear();
                        self.state = State::Counted {
                            remaining: value,
                            real: value,
                        };
                    } else {
                        // Not a count: the digits start a delimited event.
                        self.state = State::Delimited {
                            real: len,
                            bad: true,
                            last_cr: false,
                        };
                    }
                }
                State::Delimited { real, bad, .. } => match memchr::memchr2(b'\n', 0, input) {
                    Some(i) => {
                        self.keep(&input[..i]);
                        let last_cr = match i {
                            0 => matches!(self.state, State::Delimited { last_cr: true, .. }),
                            _ => input[i - 1] == b'\r',
                        };
                        let real = real.saturating_add(i);
                        let cr = usize::from(last_cr && input[i] == b'\n');
                        input = &input[i + 1..];
                        self.end(real - cr, bad, emit);
                    }
                    None => {
                        self.keep(input);
                        self.state = State::Delimited {
                            real: real.saturating_add(input.len()),
                            bad,
                            last_cr: input.last() == Some(&b'\r'),
                        };
                        input = &[];
                    }
                },
                State::Counted { remaining, real } => {
                    let n = remaining.min(input.len());
                    self.keep(&input[..n]);
                    input = &input[n..];
                    if n == remaining {
                        // A trailer some senders count in (`\n` or `\r\n`) is not the event's.
                        let whole = self.buf.bytes.len() == real;
                        let trail = if whole {
                            trailer_len(&self.buf.bytes)
                        } else {
                            0
                        };
                        self.end(real - trail.min(real), false, emit);
                    } else {
                        self.state = State::Counted {
                            remaining: remaining - n,
                            real,
                        };
                    }
                }
            }
        }
    }

    /// The stream ended: emits the event it was reading, if any (a last line without
    /// its delimiter is an event; a counted event cut short by the end is what arrived
    /// of it, flagged `bad_count`: its count lied, and its real length is the bytes
    /// received, never the length it claimed).
    pub(crate) fn finish(&mut self, emit: &mut dyn FnMut(Frame<'_>)) {
        match self.state {
            State::Start => {}
            State::Digits { len, .. } => self.end(len, true, emit),
            State::Delimited { real, bad, last_cr } => {
                self.end(real - usize::from(last_cr && real > 0), bad, emit);
            }
            State::Counted { remaining, real } => self.end(real - remaining, true, emit),
        }
    }

    /// Keeps what fits of `bytes` under the cap.
    fn keep(&mut self, bytes: &[u8]) {
        self.buf.extend(bytes, self.max, self.cap);
    }

    /// Emits the buffered event of real length `real` (trimmed of a trailing `\r` or
    /// counted trailer), unless it is empty, and starts the next.
    fn end(&mut self, real: usize, bad_count: bool, emit: &mut dyn FnMut(Frame<'_>)) {
        self.state = State::Start;
        let len = self.buf.bytes.len().min(real);
        if real > 0 {
            emit(Frame {
                bytes: &self.buf.bytes[..len],
                real_len: real,
                bad_count,
            });
        }
        self.buf.clear();
    }
}

/// Length of a trailing `\n` or `\r\n` of `bytes`.
fn trailer_len(bytes: &[u8]) -> usize {
    match bytes {
        [.., b'\r', b'\n'] => 2,
        [.., b'\n'] => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each event as (text, real_len, bad_count), feeding `input` in pieces of `step`.
    fn frames(
        framing: Framing,
        max: usize,
        input: &[u8],
        step: usize,
    ) -> Vec<(String, usize, bool)> {
        let mut framer = Framer::new(framing, max);
        let mut out = Vec::new();
        let mut emit = |f: Frame<'_>| {
            assert!(f.bytes.len() <= max.max(1), "never more than the cap");
            out.push((
                String::from_utf8_lossy(f.bytes).into_owned(),
                f.real_len,
                f.bad_count,
            ));
        };
        for piece in input.chunks(step.max(1)) {
            framer.feed(piece, &mut emit);
        }
        framer.finish(&mut emit);
        out
    }

    /// Frames `input` whole, then split in two at every byte, then a byte at a time:
    /// every way of cutting it gives the same events.
    fn all_splits(framing: Framing, max: usize, input: &[u8]) -> Vec<(String, usize, bool)> {
        let whole = frames(framing, max, input, input.len());
        assert_eq!(frames(framing, max, input, 1), whole, "a byte at a time");
        for at in 0..=input.len() {
            let mut framer = Framer::new(framing, max);
            let mut out = Vec::new();
            let mut emit = |f: Frame<'_>| {
                out.push((
                    String::from_utf8_lossy(f.bytes).into_owned(),
                    f.real_len,
                    f.bad_count,
                ));
            };
            framer.feed(&input[..at], &mut emit);
            framer.feed(&input[at..], &mut emit);
            framer.finish(&mut emit);
            assert_eq!(out, whole, "split at {at}");
        }
        whole
    }

    fn ev(text: &str) -> (String, usize, bool) {
        (text.to_owned(), text.len(), false)
    }

    #[test]
    fn lines_end_at_lf_crlf_or_nul_and_blank_ones_are_skipped() {
        let got = all_splits(
            Framing::Lines,
            100,
            b"one\ntwo\r\nthree\0{\"a\":1}\n\0\n\r\nfour\rx\nlast",
        );
        assert_eq!(
            got,
            [
                ev("one"),
                ev("two"),
                ev("three"),
                ev("{\"a\":1}"),
                ev("four\rx"),
                ev("last")
            ]
        );
    }

    #[test]
    fn a_last_line_ending_in_cr_at_eof_is_trimmed() {
        assert_eq!(frames(Framing::Lines, 100, b"end\r", 2), [ev("end")]);
    }

    #[test]
    fn long_lines_are_cut_to_the_cap_and_the_rest_skipped_to_the_delimiter() {
        let mut input = vec![b'a'; 50];
        input.extend_from_slice(b"\nshort\n");
        input.extend(std::iter::repeat_n(b'b', 20));
        input.extend_from_slice(b"\r\n");
        let got = all_splits(Framing::Lines, 8, &input);
        assert_eq!(
            got,
            [
                ("aaaaaaaa".into(), 50, false),
                ev("short"),
                ("bbbbbbbb".into(), 20, false)
            ]
        );
    }

    #[test]
    fn no_delimiter_ever_keeps_at_most_the_cap() {
        let mut framer = Framer::new(Framing::Lines, 16);
        let chunk = [b'x'; 4096];
        let mut seen = 0;
        for _ in 0..1000 {
            framer.feed(&chunk, &mut |_| seen += 1);
            assert!(framer.buf.bytes.len() <= 16);
        }
        assert_eq!(seen, 0);
        let mut last = None;
        framer.finish(&mut |f| last = Some((f.bytes.len(), f.real_len, f.cut())));
        assert_eq!(last, Some((16, 4_096_000, true)));
    }

    #[test]
    fn syslog_octet_counting_and_trailers_mix_per_message() {
        let input =
            b"11 <13>1 - x y12 <13>1 - a\nb\n<14>plain line\n<15>nul\x00 9 <1>x\r\n5 <1>x\n";
        let got = all_splits(Framing::Syslog, 100, input);
        assert_eq!(
            got,
            [
                ev("<13>1 - x y"),
                ev("<13>1 - a\nb"),
                ev("<14>plain line"),
                ev("<15>nul"),
                ev(" 9 <1>x"),
                ev("<1>x"),
            ]
        );
    }

    #[test]
    fn counted_events_longer_than_the_cap_are_cut_and_the_count_skipped() {
        let got = all_splits(Framing::Syslog, 4, b"10 0123456789<1>next\n");
        assert_eq!(got, [("0123".into(), 10, false), ("<1>n".into(), 7, false)]);
    }

    #[test]
    fn garbage_counts_are_read_as_delimited_events_and_framing_resynchronises() {
        let huge = format!("{} <13>x\n<13>after\n", "9".repeat(40));
        let got = all_splits(Framing::Syslog, 64, huge.as_bytes());
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].2, "flagged as a bad count");
        assert_eq!(got[0].1, 46);
        assert_eq!(got[1], ev("<13>after"));

        let got = all_splits(Framing::Syslog, 64, b"12abc\n123\n2026-12-01 text\n7");
        assert_eq!(
            got,
            [
                ("12abc".into(), 5, true),
                ("123".into(), 3, true),
                ("2026-12-01 text".into(), 15, true),
                ("7".into(), 1, true),
            ]
        );
        // A count just under the limit is believed; the stream ends before it is met:
        // the event is what arrived, flagged, never the size the count claimed.
        let limit = 64 * 1024 * COUNT_SLACK;
        let input = format!("{limit} abc");
        let got = frames(Framing::Syslog, 64, input.as_bytes(), 7);
        assert_eq!(got, [("abc".into(), 3, true)], "cut short by the end");
        let input = format!("{limit} {}", "x".repeat(100));
        let got = frames(Framing::Syslog, 64, input.as_bytes(), 7);
        assert_eq!(
            got,
            [("x".repeat(64), 100, true)],
            "cut at the cap: 100 arrived"
        );
        let input = format!("{} abc\n", limit + 1);
        assert!(frames(Framing::Syslog, 64, input.as_bytes(), 7)[0].2);
    }

    #[test]
    fn events_over_the_limit_are_read_whole_up_to_the_cap_with_room_from_the_pool() {
        let pool = |n: usize| -> &'static Room { Box::leak(Box::new(Room::new(n))) };
        let mut input = vec![b'a'; 50];
        input.extend_from_slice(b"\n");
        input.extend(std::iter::repeat_n(b'b', 300));
        input.extend_from_slice(b"\nshort\n");
        let mut framer = Framer::with_cap(Framing::Lines, 8, 100, pool(100));
        let mut got = Vec::new();
        for piece in input.chunks(7) {
            framer.feed(piece, &mut |f| got.push((f.bytes.len(), f.real_len)));
        }
        // 50 bytes read whole, 300 cut at the cap of 100 (92 borrowed for each, given
        // back after each event).
        assert_eq!(got, [(50, 50), (100, 300), (5, 5)]);
        // Two connections at once share the pool: the second is cut at its own limit.
        let room = pool(100);
        let mut a = Framer::with_cap(Framing::Lines, 8, 100, room);
        let mut b = Framer::with_cap(Framing::Lines, 8, 100, room);
        a.feed(&[b'x'; 60], &mut |_| unreachable!());
        let mut cut = None;
        b.feed(&[b'y'; 60], &mut |_| unreachable!());
        b.feed(b"\n", &mut |f| cut = Some((f.bytes.len(), f.real_len)));
        assert_eq!(cut, Some((8, 60)), "the pool had 8 bytes left, not 92");
        let mut whole = None;
        a.feed(b"\n", &mut |f| whole = Some((f.bytes.len(), f.real_len)));
        assert_eq!(whole, Some((60, 60)));
        assert_eq!(room.left(), 100, "every byte given back");
    }

    #[test]
    fn lines_framing_never_reads_counts() {
        assert_eq!(frames(Framing::Lines, 64, b"5 abcde\n", 3), [ev("5 abcde")]);
    }

    #[test]
    fn arbitrary_bytes_never_panic_nor_exceed_the_cap() {
        // A small deterministic generator (xorshift) over a byte alphabet rich in
        // delimiters, digits and spaces.
        let alphabet = b"0123456789 \n\r\0<>a\xff";
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..200 {
            let mut input = Vec::new();
            for _ in 0..(round * 7 % 300) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                input.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            for framing in [Framing::Lines, Framing::Syslog] {
                let max = 1 + round % 9;
                all_splits(framing, max, &input);
            }
        }
    }
}
