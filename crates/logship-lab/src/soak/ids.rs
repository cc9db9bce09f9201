//! Which ids reached the intake: one bit per id sent, per input, filled from the ids the
//! `logship-intake --record-ids` child records (8 bytes per id; `--print` of every event
//! as JSON topped out near 8,000 events/s here, below the soak's 20,000).
//!
//! Why it exists: the soak's verdict is "every id sent is delivered, or counted lost";
//! an hour at 20,000 events/s is 72 million ids, so they are bits (9 MB), not a set. Must
//! never: grow with anything but the ids sent, or parse more of a line than the id.

use std::sync::Mutex;

/// The two inputs the soak feeds, each with its own id space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Lines appended to the followed file: `soak f=ID ...`.
    Follow,
    /// Lines written to the `tcp://` listener: `soak t=ID ...`.
    Tcp,
}

impl Input {
    /// Both inputs, in the order of their marker index in the intake's id record.
    pub const ALL: [Input; 2] = [Input::Follow, Input::Tcp];

    /// The marker before the id in a line's message.
    pub fn marker(self) -> &'static str {
        match self {
            Input::Follow => "soak f=",
            Input::Tcp => "soak t=",
        }
    }

    /// The line the soak sends with id `id` (newline included).
    pub fn line(self, id: u64) -> String {
        format!(
            "{}{id} the quick brown fox jumps over the lazy dog, a soak line\n",
            self.marker()
        )
    }
}

/// One input's ids seen so far.
#[derive(Debug, Default)]
struct Bits {
    words: Vec<u64>,
    unique: u64,
    duplicates: u64,
}

impl Bits {
    fn mark(&mut self, id: u64) {
        let (word, bit) = ((id / 64) as usize, id % 64);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        if self.words[word] & (1 << bit) != 0 {
            self.duplicates += 1;
        } else {
            self.words[word] |= 1 << bit;
            self.unique += 1;
        }
    }

    fn has(&self, id: u64) -> bool {
        self.words
            .get((id / 64) as usize)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
}

/// The ids of both inputs the intake received, shared by the intake's reader threads.
#[derive(Debug, Default)]
pub struct Seen {
    follow: Mutex<Bits>,
    tcp: Mutex<Bits>,
    /// Recorded words whose marker index names no input (none expected).
    other: Mutex<u64>,
}

/// What one input's ids came to, checked against how many were sent.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub sent: u64,
    pub delivered: u64,
    pub duplicates: u64,
    /// Ids below `sent` never received, whose write the client saw fail.
    pub refused: u64,
    /// Ids below `sent` never received, the rest.
    pub missing: u64,
    /// The first [`MISSING_RANGES`] runs of consecutive missing ids, for the report (a
    /// lost batch shows as one run on each input, at the same moment).
    pub missing_ranges: Vec<std::ops::Range<u64>>,
}

/// How many runs of missing ids a [`Tally`] keeps.
pub const MISSING_RANGES: usize = 8;

impl Seen {
    fn bits(&self, input: Input) -> std::sync::MutexGuard<'_, Bits> {
        let m = match input {
            Input::Follow => &self.follow,
            Input::Tcp => &self.tcp,
        };
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks one word of the intake's `--record-ids` file: the marker index (the input's
    /// place in [`Input::ALL`]) in the top byte, the id below.
    pub fn mark_word(&self, word: u64) {
        match Input::ALL.get((word >> 56) as usize) {
            Some(input) => self.bits(*input).mark(word & ((1 << 56) - 1)),
            None => {
                *self
                    .other
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) += 1
            }
        }
    }

    /// How many distinct ids of `input` arrived.
    pub fn unique(&self, input: Input) -> u64 {
        self.bits(input).unique
    }

    /// The tally of `input` against `sent` ids (`0..sent`); an id never received in one
    /// of the `refused` ranges (the client saw its write fail) is counted as refused.
    pub fn tally(&self, input: Input, sent: u64, refused: &[std::ops::Range<u64>]) -> Tally {
        let bits = self.bits(input);
        let mut t = Tally {
            sent,
            duplicates: bits.duplicates,
            ..Tally::default()
        };
        for id in 0..sent {
            if bits.has(id) {
                t.delivered += 1;
            } else if refused.iter().any(|r| r.contains(&id)) {
                t.refused += 1;
            } else {
                t.missing += 1;
                let kept = t.missing_ranges.len();
                match t.missing_ranges.last_mut() {
                    Some(run) if run.end == id => run.end = id + 1,
                    _ if kept < MISSING_RANGES => t.missing_ranges.push(id..id + 1),
                    _ => {}
                }
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_read_from_record_words_and_counted_once() {
        let seen = Seen::default();
        for id in [0, 1, 64, 1] {
            seen.mark_word(id);
        }
        seen.mark_word((1 << 56) | 7);
        seen.mark_word((9 << 56) | 3); // no such input: counted apart
        assert_eq!(*seen.other.lock().unwrap(), 1);
        let f = seen.tally(Input::Follow, 66, &[]);
        assert_eq!((f.delivered, f.duplicates, f.missing), (3, 1, 63));
        let t = seen.tally(Input::Tcp, 8, std::slice::from_ref(&(0..3)));
        assert_eq!((t.delivered, t.refused, t.missing), (1, 3, 4));
        assert_eq!(t.missing_ranges, vec![3..7]);
        assert_eq!(f.missing_ranges, vec![2..64, 65..66]);
    }
}
