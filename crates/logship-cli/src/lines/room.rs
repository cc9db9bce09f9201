//! Room for lines longer than the event limit: a line between `max_event_bytes` and the
//! read cap is read whole, parsed, and then truncated by the pipeline (which keeps its
//! level, logger and every field, and cuts only the message); the bytes such lines hold
//! beyond the event limit come from one pool per process.
//!
//! Why it exists: each followed file and each TCP connection already holds up to
//! `max_event_bytes` of its unfinished line; without a shared pool, 256 connections each
//! sending an 8 MiB line would hold 2 GiB. With it, all of them together hold at most
//! [`LONG_LINES_ROOM`] more. Must never: hand out more than it holds, or block (a line
//! that finds no room is cut where it is, counted, as before this pool).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The longest line any input reads whole (at least `max_event_bytes`): past it a line
/// is cut while reading (its real size kept and counted) and shipped as text.
pub(crate) const READ_CAP: usize = 8 * 1024 * 1024;

/// Bytes beyond `max_event_bytes` all the lines being read at once may hold together:
/// one line at the read cap (each such line is also copied into its event while it is
/// held, so the pool bounds about twice its size).
pub(crate) const LONG_LINES_ROOM: usize = READ_CAP;

/// The read cap for an event limit of `max_event_bytes`: [`READ_CAP`], or the event
/// limit when it is larger.
pub(crate) fn read_cap(max_event_bytes: usize) -> usize {
    READ_CAP.max(max_event_bytes)
}

/// A pool of bytes lines over the event limit borrow while they are read.
#[derive(Debug)]
pub(crate) struct Room {
    left: AtomicUsize,
}

impl Room {
    /// A pool of `bytes`.
    pub(crate) const fn new(bytes: usize) -> Room {
        Room {
            left: AtomicUsize::new(bytes),
        }
    }

    /// The process's pool, shared by every input.
    pub(crate) fn shared() -> &'static Room {
        static SHARED: Room = Room::new(LONG_LINES_ROOM);
        &SHARED
    }

    /// Takes `n` bytes; false (nothing taken) when fewer are left.
    pub(crate) fn take(&self, n: usize) -> bool {
        self.left
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }

    /// Gives back `n` bytes taken before.
    pub(crate) fn give(&self, n: usize) {
        self.left.fetch_add(n, Ordering::AcqRel);
    }

    /// Bytes left.
    #[cfg(test)]
    pub(crate) fn left(&self) -> usize {
        self.left.load(Ordering::Acquire)
    }
}

/// One line's buffer: up to a limit of its own, more (up to a cap) only with bytes
/// taken from a [`Room`], which it gives back when cleared or dropped.
#[derive(Debug)]
pub(crate) struct LineBuf {
    /// The bytes kept.
    pub(crate) bytes: Vec<u8>,
    room: &'static Room,
    borrowed: usize,
    /// The pool had no room when the line needed it: the line was cut below its cap.
    pub(crate) starved: bool,
}

impl LineBuf {
    /// An empty buffer borrowing from `room`.
    pub(crate) fn new(room: &'static Room) -> LineBuf {
        LineBuf {
            bytes: Vec::new(),
            room,
            borrowed: 0,
            starved: false,
        }
    }

    /// Appends what fits of `more`: up to `limit` bytes freely; past it, only when the
    /// pool lends the line all the room it may need up to `cap` at once (lent bit by
    /// bit, many long lines at once would share the pool out and none be read whole);
    /// never past `cap`. A line the pool cannot serve is cut at `limit` (`starved`).
    pub(crate) fn extend(&mut self, more: &[u8], limit: usize, cap: usize) {
        let len = self.bytes.len();
        let cap = cap.max(limit);
        let want = len.saturating_add(more.len()).min(cap);
        if want > limit && self.borrowed == 0 && !self.starved {
            let need = cap - limit;
            if self.room.take(need) {
                self.borrowed = need;
            } else {
                self.starved = true;
            }
        }
        let upto = if self.borrowed > 0 {
            want
        } else {
            want.min(limit.max(len))
        };
        if upto > len {
            self.bytes.extend_from_slice(&more[..upto - len]);
        }
    }

    /// Empties it for the next line, giving back what it borrowed (and the memory of a
    /// long line).
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.starved = false;
        if self.borrowed > 0 {
            self.room.give(self.borrowed);
            self.borrowed = 0;
            self.bytes.shrink_to(64 * 1024);
        }
    }
}

/// An empty buffer borrowing from the process's pool.
impl Default for LineBuf {
    fn default() -> LineBuf {
        LineBuf::new(Room::shared())
    }
}

impl Drop for LineBuf {
    fn drop(&mut self) {
        self.room.give(self.borrowed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize) -> &'static Room {
        Box::leak(Box::new(Room::new(n)))
    }

    #[test]
    fn a_line_past_the_limit_borrows_its_room_up_to_the_cap_at_once_and_gives_it_back() {
        let room = pool(100);
        let mut a = LineBuf::new(room);
        a.extend(&[b'a'; 8], 10, 60);
        assert_eq!(room.left(), 100, "under the limit: nothing borrowed");
        a.extend(&[b'a'; 30], 10, 60);
        assert_eq!(
            (a.bytes.len(), room.left()),
            (38, 50),
            "the room to the cap, at once"
        );
        a.extend(&[b'a'; 100], 10, 60);
        assert_eq!((a.bytes.len(), room.left()), (60, 50), "never past the cap");
        // A second line finds too little room: it is cut at its own limit.
        let mut b = LineBuf::new(room);
        b.extend(&[b'b'; 70], 10, 200);
        assert!(b.starved);
        assert_eq!((b.bytes.len(), room.left()), (10, 50));
        b.extend(&[b'b'; 5], 10, 200);
        assert_eq!(b.bytes.len(), 10, "a starved line takes no more");
        a.clear();
        assert_eq!(room.left(), 100);
        b.extend(&[b'b'; 5], 10, 200);
        assert_eq!(b.bytes.len(), 10, "still the same line: stays cut");
        b.clear();
        b.extend(&[b'c'; 70], 10, 90);
        assert_eq!((b.bytes.len(), room.left()), (70, 20));
        drop(b);
        assert_eq!(room.left(), 100, "given back when dropped");
    }

    #[test]
    fn the_read_cap_is_at_least_the_event_limit() {
        assert_eq!(read_cap(1 << 20), READ_CAP);
        assert_eq!(read_cap(64 << 20), 64 << 20);
    }
}
