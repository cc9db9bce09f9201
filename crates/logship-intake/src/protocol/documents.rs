//! The documents the emulated Elasticsearch holds: by index and `_id`, and by content.
//!
//! Why it exists: a `create` naming an `_id` the index already holds is refused by a real
//! cluster with `409 version_conflict_engine_exception`, which is what makes a client's
//! replay duplicate-free. The intake must answer the same way, and a test must be able to
//! count what the cluster ended up holding: documents by `_id`, and documents whose
//! content equals an earlier one's (a duplicate, whatever its id).
//!
//! Must never: grow without bound (at most [`MAX_REMEMBERED`] ids and contents are
//! remembered; past that, new ones are counted in `forgotten` and not checked), or make
//! a request wait on anything but its own short lock.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Most ids (and, separately, contents) remembered.
pub(crate) const MAX_REMEMBERED: usize = 4 << 20;

/// Counts of what the cluster holds, since start or the last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DocumentCounts {
    /// Documents stored (by `create` or `index`, with or without an `_id`).
    pub stored: u64,
    /// Distinct `(index, _id)` pairs among the stored documents that named an `_id`.
    pub ids: u64,
    /// `create`s refused with 409 because their `_id` was already stored.
    pub id_conflicts: u64,
    /// Stored documents whose content (the source line, `_index` left out) equals a
    /// document stored before: the duplicates a client's replay left.
    pub content_duplicates: u64,
    /// Documents stored after [`MAX_REMEMBERED`] ids or contents were: not checked.
    pub forgotten: u64,
}

#[derive(Default)]
struct Inner {
    ids: HashSet<(String, String)>,
    contents: HashMap<u64, u32>,
    counts: DocumentCounts,
}

/// What the emulated cluster holds, shared by every request (see the module docs).
#[derive(Default)]
pub(crate) struct Documents {
    inner: Mutex<Inner>,
    cond: Condvar,
}

impl std::fmt::Debug for Documents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Documents")
            .field("counts", &self.counts())
            .finish()
    }
}

/// Whether a document was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stored {
    /// Stored as a new document.
    Created,
    /// An `index` of an existing `_id`: the document was replaced.
    Updated,
    /// A `create` of an existing `_id`: refused (409).
    Conflict,
}

impl Documents {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores one document of `index` (the concrete index) whose source is `content`:
    /// `create` refuses an `_id` stored before, `index` replaces it.
    pub(crate) fn store(
        &self,
        index: &str,
        id: Option<&str>,
        create: bool,
        content: &[u8],
    ) -> Stored {
        let mut inner = self.lock();
        let mut outcome = Stored::Created;
        if let Some(id) = id {
            let key = (index.to_owned(), id.to_owned());
            if inner.ids.contains(&key) {
                if create {
                    inner.counts.id_conflicts += 1;
                    return Stored::Conflict;
                }
                outcome = Stored::Updated;
            } else if inner.ids.len() < MAX_REMEMBERED {
                inner.ids.insert(key);
                inner.counts.ids += 1;
            } else {
                inner.counts.forgotten += 1;
            }
        }
        if outcome == Stored::Created {
            inner.counts.stored += 1;
            let mut h = DefaultHasher::new();
            content.hash(&mut h);
            let hash = h.finish();
            let full = inner.contents.len() >= MAX_REMEMBERED;
            match inner.contents.get_mut(&hash) {
                Some(n) => {
                    *n += 1;
                    inner.counts.content_duplicates += 1;
                }
                None if full => inner.counts.forgotten += 1,
                None => {
                    inner.contents.insert(hash, 1);
                }
            }
        }
        drop(inner);
        self.cond.notify_all();
        outcome
    }

    /// The counts now.
    pub(crate) fn counts(&self) -> DocumentCounts {
        self.lock().counts
    }

    /// Forgets every document.
    pub(crate) fn clear(&self) {
        *self.lock() = Inner::default();
        self.cond.notify_all();
    }

    /// Blocks until `pred(counts)` holds or `timeout` passes; returns whether it holds.
    pub(crate) fn wait_until(
        &self,
        timeout: Duration,
        pred: impl Fn(&DocumentCounts) -> bool,
    ) -> bool {
        let inner = self.lock();
        let (inner, _) = self
            .cond
            .wait_timeout_while(inner, timeout, |i| !pred(&i.counts))
            .unwrap_or_else(PoisonError::into_inner);
        pred(&inner.counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_create_of_a_stored_id_conflicts_and_an_index_replaces() {
        let docs = Documents::default();
        assert_eq!(docs.store("logs", Some("a"), true, b"{1}"), Stored::Created);
        assert_eq!(
            docs.store("logs", Some("a"), true, b"{1}"),
            Stored::Conflict
        );
        assert_eq!(
            docs.store("other", Some("a"), true, b"{2}"),
            Stored::Created
        );
        assert_eq!(
            docs.store("logs", Some("a"), false, b"{3}"),
            Stored::Updated
        );
        let c = docs.counts();
        assert_eq!((c.stored, c.ids, c.id_conflicts), (2, 2, 1));
        assert_eq!(c.content_duplicates, 0);
    }

    #[test]
    fn equal_contents_without_ids_are_counted_as_duplicates() {
        let docs = Documents::default();
        for _ in 0..3 {
            assert_eq!(docs.store("logs", None, true, b"{same}"), Stored::Created);
        }
        docs.store("logs", None, true, b"{other}");
        let c = docs.counts();
        assert_eq!((c.stored, c.ids, c.content_duplicates), (4, 0, 2));
        docs.clear();
        assert_eq!(docs.counts(), DocumentCounts::default());
    }
}
