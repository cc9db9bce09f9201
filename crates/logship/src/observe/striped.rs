//! A counter that many threads add to at once without sharing a cache line.
//!
//! Why it exists: every log call counts itself (queued, or dropped because the queue was
//! full). One shared atomic would be written from every core on every call, and the cores
//! would pass its cache line back and forth: on a two-core machine with eight threads
//! logging, that is a large part of what an accepted call costs. A [`Striped`] counter
//! keeps [`STRIPES`] atomics, each on a cache line of its own; a thread always adds to the
//! one its first use picked (round robin), and a read sums them all.
//!
//! Exact, like an atomic: every add is counted once, and a read after the adds it should
//! see (after a join, a channel hand-off or a lock) sees them. Must never allocate, lock
//! or make a system call on the adding side.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

/// How many stripes a counter has: twice the cores this is tuned for is plenty; threads
/// beyond that share stripes, which stays correct and costs only some contention.
const STRIPES: usize = 8;

/// A relaxed counter split over [`STRIPES`] cache lines (see the module doc). Each
/// stripe is [`CachePadded`]: alone on its line (128 bytes on x86-64, where the
/// adjacent-line prefetcher moves pairs).
#[derive(Default, Debug)]
pub(crate) struct Striped([CachePadded<AtomicU64>; STRIPES]);

/// The next stripe a thread's first add will pick.
static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's stripe, plus one (0: not picked yet).
    static MY_STRIPE: Cell<usize> = const { Cell::new(0) };
}

/// The stripe this thread adds to.
#[inline]
fn my_stripe() -> usize {
    MY_STRIPE.with(|mine| match mine.get() {
        0 => {
            let picked = NEXT_STRIPE.fetch_add(1, Relaxed) % STRIPES;
            mine.set(picked + 1);
            picked
        }
        n => n - 1,
    })
}

impl Striped {
    /// Adds `n`.
    #[inline]
    pub(crate) fn add(&self, n: u64) {
        self.0[my_stripe()].fetch_add(n, Relaxed);
    }

    /// The sum of every add so far.
    pub(crate) fn get(&self) -> u64 {
        self.0
            .iter()
            .fold(0u64, |sum, s| sum.wrapping_add(s.load(Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::Striped;

    #[test]
    fn adds_from_many_threads_are_all_counted() {
        let counter = Striped::default();
        std::thread::scope(|s| {
            for _ in 0..20 {
                s.spawn(|| {
                    for _ in 0..1_000 {
                        counter.add(1);
                    }
                    counter.add(5);
                });
            }
        });
        assert_eq!(counter.get(), 20 * 1_005);
    }

    #[test]
    fn each_stripe_has_a_cache_line_of_its_own() {
        let line = std::mem::align_of::<crossbeam_utils::CachePadded<u64>>();
        assert!(line >= 64);
        assert_eq!(std::mem::size_of::<Striped>(), line * super::STRIPES);
    }
}
