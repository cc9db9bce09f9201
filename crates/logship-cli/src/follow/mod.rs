//! Following log files: `logship ship --follow PATTERN...`.
//!
//! Why it exists: the fastest logging path of a Java (or any) service is a file appender;
//! this turns the files it writes into shipped events without a restart ever losing or
//! re-shipping a file, through rotation by rename, copytruncate, deletion and symlink
//! swaps. [`Follower`] is a component, not a command: it reads into any [`Logship`] handle
//! until told to stop, so a long-running mode can run it next to other inputs in the same
//! process; `crate::service` is the `ship --follow` command around it.
//!
//! How: polling, not inotify. Every `poll` interval the patterns are matched again and
//! every file is checked (size, identity, first bytes); between scans, files with new
//! bytes are read in turns of at most `read_budget` bytes each, so one busy file cannot
//! starve the others. Polling costs a few `stat` calls per file per interval and is the
//! same on every file system (inotify misses NFS, overlay quirks and symlink targets);
//! the price is up to one interval of latency.
//!
//! Must never: read a file faster than the pipeline takes its lines (a full queue blocks
//! the reader: memory stays flat however large the backlog), hold more than
//! `max_open` files open, hold more than `max_line` bytes of one line per file, advance
//! a checkpoint past a line the pipeline has not settled (see `checkpointer.rs`), or
//! stop following on any I/O error (it is counted and the file is tried again).

pub mod checkpoint;
pub mod checkpointer;
pub mod container;
mod counters;
pub mod discover;
mod emit;
pub mod identity;
pub mod multiline;
mod options;
pub mod rescan;
pub mod tail;

pub use counters::{describe, Counters};
pub use options::{LineFormat, Options, StartAt, READ_BUDGET};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use logship::Logship;

use self::checkpoint::Entry;
use self::discover::Patterns;
use self::emit::{Emit, Pending};
use self::identity::{FileId, Fingerprint, FP_LEN};
use self::tail::{Change, Tail};

/// How long a file stays open while other files wait for a slot.
const TURN: Duration = Duration::from_secs(1);

/// Lines pushed between two publications of a file's position within one turn.
const PUBLISH_EVERY: usize = 1000;

/// Truncations remembered for copies not seen yet.
const TRUNCATIONS_KEPT: usize = 64;

/// One followed file and where its settled lines end.
struct Source {
    tail: Tail,
    /// Every line before this offset has been handed to the pipeline.
    pushed: u64,
    /// Lines held for a multi-line event or a partial container line (they begin at
    /// `pushed`), and the file's own fields.
    asm: Pending,
}

/// Reads followed files into a pipeline.
pub struct Follower {
    opts: Options,
    patterns: Patterns,
    files: Vec<Source>,
    /// Files read to their end and closed whose path still matches (a rotated `app.log.1`):
    /// not read again, and kept in the checkpoint so a restart does not re-read them.
    done: HashMap<FileId, Entry>,
    /// Files closed to make room for others (see `make_room`), with when.
    parked: HashMap<FileId, (Entry, Instant)>,
    /// Checkpoint entries from the last run, used at the first scan.
    resume: Vec<Entry>,
    first_scan: bool,
    /// Fingerprints of files truncated before their copy was seen, with the offset
    /// reached: a copy found later is read from there (copytruncate).
    truncated: std::collections::VecDeque<(Fingerprint, u64)>,
    /// Files that existed at start-up (where `start_at` applies).
    at_start: std::collections::HashSet<FileId>,
    counters: Arc<Counters>,
    published: Arc<Mutex<Vec<Entry>>>,
    /// Files that could not be opened, said once each on stderr (until one opens).
    unopened: std::collections::HashSet<FileId>,
}

impl Follower {
    /// A follower of `opts.patterns` that resumes from `resume` (a loaded checkpoint).
    /// An invalid pattern is an error naming it.
    pub fn new(opts: Options, resume: Vec<Entry>) -> Result<Follower, String> {
        Ok(Follower {
            patterns: Patterns::new(&opts.patterns)?,
            opts,
            files: Vec::new(),
            done: HashMap::new(),
            parked: HashMap::new(),
            resume,
            first_scan: true,
            truncated: Default::default(),
            at_start: Default::default(),
            counters: Arc::new(Counters::default()),
            published: Arc::new(Mutex::new(Vec::new())),
            unopened: Default::default(),
        })
    }

    /// The follower's counters (shared, live).
    pub fn counters(&self) -> Arc<Counters> {
        Arc::clone(&self.counters)
    }

    /// Where every file stands, as published after each round: every line before each
    /// entry's offset has been pushed to the pipeline (not necessarily settled).
    pub fn positions(&self) -> Arc<Mutex<Vec<Entry>>> {
        Arc::clone(&self.published)
    }

    /// Follows until `stop` is set (checked between lines and while idle). `rescan` set
    /// makes the next round match the patterns again at once (SIGHUP).
    pub fn run(&mut self, logship: &Logship, stop: &AtomicBool, rescan: &AtomicBool) {
        let mut next_scan = Instant::now();
        while !stop.load(Ordering::Acquire) {
            let now = Instant::now();
            let asked = rescan.swap(false, Ordering::AcqRel);
            if asked || now >= next_scan {
                self.scan(now);
                next_scan = now + self.opts.poll;
            }
            let mut busy = false;
            for i in 0..self.files.len() {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                busy |= self.turn(i, logship, stop);
            }
            self.retire(logship, stop);
            self.flush_stale(logship, stop);
            self.publish();
            if !busy {
                let mut idle = next_scan.saturating_duration_since(Instant::now());
                if self.files.iter().any(|s| s.tail.gone_since.is_some()) {
                    // A rotated-away or deleted file is closed in time however long the
                    // poll interval.
                    idle = idle.min(self.opts.rotate_wait);
                }
                nap(idle.min(self.opts.poll), stop, rescan);
            }
        }
        self.flush_all(logship);
        self.publish();
    }

    /// Matches the patterns again: new files are opened (or resumed from the
    /// checkpoint), renamed ones followed under their new name, and files whose path no
    /// longer names them are marked for reading to their end.
    fn scan(&mut self, now: Instant) {
        let found = self.patterns.scan();
        if self.first_scan {
            self.at_start = found.iter().map(|(_, id)| *id).collect();
        }
        let mut live: HashMap<FileId, PathBuf> = HashMap::new();
        let mut waiting: Vec<(PathBuf, FileId)> = Vec::new();
        for (path, id) in found {
            live.insert(id, path.clone());
            if let Some(src) = self.files.iter_mut().find(|s| s.tail.id == id) {
                src.tail.path = path;
                continue;
            }
            if let Some(entry) = self.done.get(&id) {
                if let Ok(file) = std::fs::File::open(&path) {
                    if entry.fingerprint().matches(&file) {
                        continue; // read to its end already
                    }
                }
                self.done.remove(&id); // inode reused by a new file
            }
            waiting.push((path, id));
        }
        self.done.retain(|id, _| live.contains_key(id));
        self.unopened.retain(|id| live.contains_key(id));
        let before = self.parked.len();
        self.parked.retain(|id, _| live.contains_key(id));
        let vanished = before - self.parked.len();
        self.counters
            .lost_parked
            .fetch_add(vanished as u64, Ordering::Relaxed);
        for src in &mut self.files {
            let named = live.contains_key(&src.tail.id);
            if !named && src.tail.gone_since.is_none() {
                src.tail.gone_since = Some(now);
                self.counters.rotations.fetch_add(1, Ordering::Relaxed);
            }
        }
        if !waiting.is_empty() {
            self.make_room(waiting.len(), now);
            // Longest waiting first: never-opened files, then the longest parked.
            waiting.sort_by_key(|(_, id)| self.parked.get(id).map(|(_, at)| *at));
        }
        let room = self.opts.max_open.saturating_sub(self.files.len());
        let left = waiting.len().saturating_sub(room);
        for (path, id) in waiting.into_iter().take(room) {
            self.discover(path, id);
        }
        self.counters
            .waiting_files
            .store(left as u64, Ordering::Relaxed);
        self.first_scan = false;
    }

    /// With files waiting and `max_open` files open, closes (parks) open files that are
    /// idle at their end, or have had their turn (open for `TURN`), so that every file
    /// is read in time. A parked file resumes at its offset when it is opened again.
    /// Files rotated away or deleted are never parked: they could not be opened again.
    fn make_room(&mut self, wanted: usize, now: Instant) {
        let free = self.opts.max_open.saturating_sub(self.files.len());
        let mut need = wanted.saturating_sub(free);
        let mut i = 0;
        while need > 0 && i < self.files.len() {
            let t = &self.files[i].tail;
            let parkable = t.gone_since.is_none()
                && t.shadow_of.is_none()
                && (t.at_eof || now.duration_since(t.opened_at) >= TURN);
            if !parkable {
                i += 1;
                continue;
            }
            let src = self.files.swap_remove(i);
            let e = entry(&src.tail.path, src.tail.id, src.tail.fp, src.pushed);
            self.parked.insert(src.tail.id, (e, now));
            need -= 1;
        }
    }

    /// Starts following a file found for the first time.
    fn discover(&mut self, path: PathBuf, id: FileId) {
        let file = match std::fs::File::open(&path) {
            Ok(file) => {
                self.unopened.remove(&id);
                file
            }
            Err(e) => {
                self.counters.io_errors.fetch_add(1, Ordering::Relaxed);
                // A file that vanished between the scan and the open is no news.
                if e.kind() != std::io::ErrorKind::NotFound && self.unopened.insert(id) {
                    eprintln!(
                        "logship: warning: cannot open {}: {e}; its lines are not read yet (tried again at every scan, counted as read errors; give this user read access)",
                        path.display()
                    );
                }
                return;
            }
        };
        // It may have been replaced between the scan and the open.
        let id = file.metadata().map(|m| FileId::of(&m)).unwrap_or(id);
        let size = file.metadata().map_or(0, |m| m.len());
        let fp = Fingerprint::read(&file, FP_LEN);
        let mut shadow_of = None;
        let copied = self
            .truncated
            .iter()
            .position(|(old, _)| fp.is_full() && *old == fp);
        let parked = self
            .parked
            .remove(&id)
            .filter(|(e, _)| e.fingerprint().matches(&file));
        let offset = if let Some((e, _)) = parked {
            e.offset.min(size)
        } else if let Some(offset) = self.resume_offset(id, &file, fp, size) {
            offset
        } else if let Some(i) = copied {
            // The copy of a file truncated before we saw the copy: it holds the rest.
            self.truncated.remove(i).map_or(0, |(_, before)| before)
        } else if let Some(original) = self
            .files
            .iter()
            .find(|s| fp.is_full() && s.tail.fp == fp && s.tail.gone_since.is_none())
        {
            // A copy of a file we follow (copytruncate's copy): read it only from where
            // the original is when the original is truncated.
            shadow_of = Some(original.tail.id);
            0
        } else if self.at_start.contains(&id) && self.opts.start_at == StartAt::End {
            size
        } else {
            0
        };
        self.counters.files_opened.fetch_add(1, Ordering::Relaxed);
        let path_for_fields = path.clone();
        let mut tail = Tail::new(path, id, file, offset);
        tail.shadow_of = shadow_of;
        self.files.push(Source {
            tail,
            pushed: offset,
            asm: Pending::new(&path_for_fields),
        });
    }

    /// The offset a checkpoint of the last run gives for this file, if any: the same
    /// inode with the same first bytes, or (a copy made while logship was down) other
    /// inode, same full fingerprint. A known inode whose first bytes changed was rewritten:
    /// read from 0.
    fn resume_offset(
        &mut self,
        id: FileId,
        file: &std::fs::File,
        fp: Fingerprint,
        size: u64,
    ) -> Option<u64> {
        if self.resume.is_empty() {
            return None;
        }
        let same = self
            .resume
            .iter()
            .position(|e| e.id() == id && e.fingerprint().matches(file))
            .or_else(|| {
                self.resume
                    .iter()
                    .position(|e| fp.is_full() && e.fingerprint() == fp)
            });
        match same {
            Some(i) => {
                let entry = self.resume.swap_remove(i);
                Some(if entry.offset <= size {
                    entry.offset
                } else {
                    0
                })
            }
            None if self.resume.iter().any(|e| e.id() == id) => Some(0),
            None => None,
        }
    }

    /// One turn of reading file `i`; true when it had new bytes.
    fn turn(&mut self, i: usize, logship: &Logship, stop: &AtomicBool) -> bool {
        let src = &self.files[i];
        if src.tail.file.is_none() || src.tail.shadow_of.is_some() {
            return false;
        }
        // Rotation by rename: the rest of the old file goes first.
        if src.tail.gone_since.is_none()
            && self.files.iter().any(|o| {
                o.tail.gone_since.is_some() && !o.tail.at_eof && o.tail.path == src.tail.path
            })
        {
            return false;
        }
        let now = Instant::now();
        let src = &mut self.files[i];
        if let Change::Truncated { before, old } = src.tail.check() {
            self.counters.truncations.fetch_add(1, Ordering::Relaxed);
            // What was held is complete: the rest of the old content is in its copy.
            let mut emit = Emit::new(logship, &self.opts, &self.counters, stop, src.pushed);
            emit.flush(&mut src.asm);
            src.pushed = 0;
            let id = src.tail.id;
            // Its copy, if we see one, holds the rest of what it had: now, or when the
            // copy is found later.
            let mut handed = false;
            for other in &mut self.files {
                if other.tail.shadow_of == Some(id) {
                    other.tail.shadow_of = None;
                    other.tail.seek(before);
                    other.pushed = before;
                    handed = true;
                }
            }
            if !handed && old.is_full() {
                if self.truncated.len() == TRUNCATIONS_KEPT {
                    self.truncated.pop_front();
                }
                self.truncated.push_back((old, before));
            }
        }
        let Source { tail, pushed, asm } = &mut self.files[i];
        let path = tail.path.clone();
        let (id, fp, published) = (tail.id, tail.fp, &self.published);
        let mut emit = Emit::new(logship, &self.opts, &self.counters, stop, *pushed);
        let mut since_published = 0usize;
        let result = tail.read(
            self.opts.read_budget,
            (self.opts.max_line, self.opts.read_cap),
            &mut |line| {
                emit.line(asm, &line, now);
                since_published += 1;
                if since_published == PUBLISH_EVERY {
                    // A turn can take long when the pipeline is slow: let the checkpointer
                    // see progress meanwhile.
                    since_published = 0;
                    publish_one(published, entry(&path, id, fp, emit.pushed));
                }
            },
        );
        *pushed = emit.pushed;
        match result {
            Ok(n) => n > 0,
            Err(_) => {
                self.counters.io_errors.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Ships multi-line events that waited their timeout (quiet files).
    fn flush_stale(&mut self, logship: &Logship, stop: &AtomicBool) {
        let Some(ml) = &self.opts.multiline else {
            return;
        };
        let now = Instant::now();
        for src in &mut self.files {
            if let Some(event) = src.asm.ml.stale(ml, now) {
                let mut emit = Emit::new(logship, &self.opts, &self.counters, stop, src.pushed);
                emit.event(event, &src.asm.fields);
                src.pushed = emit.pushed;
            }
        }
    }

    /// At stop: ships what the assemblers hold (read, so it is delivered or spilled).
    fn flush_all(&mut self, logship: &Logship) {
        let go_on = AtomicBool::new(false);
        for src in &mut self.files {
            let mut emit = Emit::new(logship, &self.opts, &self.counters, &go_on, src.pushed);
            emit.flush(&mut src.asm);
            src.pushed = emit.pushed;
        }
    }

    /// Closes files that were rotated away or deleted once they are read to their end and
    /// `rotate_wait` has passed; their copies (if any) take over where they ended.
    fn retire(&mut self, logship: &Logship, stop: &AtomicBool) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.files.len() {
            let src = &self.files[i];
            let finished = src.tail.at_eof
                && src
                    .tail
                    .gone_since
                    .is_some_and(|t| now.duration_since(t) >= self.opts.rotate_wait);
            if !finished {
                i += 1;
                continue;
            }
            let mut src = self.files.swap_remove(i);
            let mut emit = Emit::new(logship, &self.opts, &self.counters, stop, src.pushed);
            let asm = &mut src.asm;
            src.tail.finish(&mut |line| emit.line(asm, &line, now));
            emit.flush(asm);
            let pushed = emit.pushed;
            src.tail.file = None;
            let id = src.tail.id;
            let end = src.tail.line_start();
            for other in &mut self.files {
                if other.tail.shadow_of == Some(id) {
                    other.tail.shadow_of = None;
                    other.tail.seek(end);
                    other.pushed = end;
                }
            }
            if std::fs::metadata(&src.tail.path).is_ok_and(|m| FileId::of(&m) == id) {
                // Renamed out of the way but still matched by a pattern: remember it.
                self.done
                    .insert(id, entry(&src.tail.path, id, src.tail.fp, pushed));
            }
        }
    }

    /// Publishes where every file stands (for the checkpointer).
    fn publish(&self) {
        let mut entries: Vec<Entry> = self
            .files
            .iter()
            .filter(|s| s.tail.shadow_of.is_none())
            .map(|s| entry(&s.tail.path, s.tail.id, s.tail.fp, s.pushed))
            .collect();
        entries.extend(self.done.values().cloned());
        entries.extend(self.parked.values().map(|(e, _)| e.clone()));
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        let mut published = self.published.lock().unwrap_or_else(|e| e.into_inner());
        if *published != entries {
            *published = entries;
        }
    }
}

/// Sleeps for `idle`, in short slices so that a stop or a rescan (SIGHUP) is acted on
/// within one slice however long the poll interval.
fn nap(idle: Duration, stop: &AtomicBool, rescan: &AtomicBool) {
    const SLICE: Duration = Duration::from_millis(20);
    let until = Instant::now() + idle;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || stop.load(Ordering::Acquire) || rescan.load(Ordering::Acquire) {
            return;
        }
        std::thread::sleep(left.min(SLICE));
    }
}

/// Updates one file's published position.
fn publish_one(published: &Mutex<Vec<Entry>>, e: Entry) {
    let mut all = published.lock().unwrap_or_else(|p| p.into_inner());
    match all.iter_mut().find(|x| x.dev == e.dev && x.ino == e.ino) {
        Some(x) => *x = e,
        None => all.push(e),
    }
}

fn entry(path: &Path, id: FileId, fp: Fingerprint, offset: u64) -> Entry {
    Entry {
        path: path.to_path_buf(),
        dev: id.dev,
        ino: id.ino,
        fp_len: fp.len,
        fp_hash: fp.hash,
        offset,
    }
}
