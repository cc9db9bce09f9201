//! The soak's two sources, each paced to its share of the rate: lines appended to the
//! followed file (renamed away every `rotate_every` lines, as a rotating logger does) and
//! lines written to logship's `tcp://` listener.
//!
//! Why it exists: the soak drives `--follow` and `--listen` together, with ids the check
//! can account for. Must never: count an id as sent before its whole line was written,
//! or hide a write the listener refused (those ids are kept as "refused at the client").

use std::io::Write;
use std::net::TcpStream;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::ids::Input;

/// Most lines written at once (a 20 ms share at 20,000/s is 400).
const MAX_BATCH: u64 = 2_000;

/// One source's progress, read by the soak while it runs.
#[derive(Debug, Default)]
pub struct Source {
    /// Ids `0..sent` were written whole.
    pub sent: AtomicU64,
    /// Ranges whose write failed (the listener closed or stalled past the write timeout):
    /// the client saw the failure, so those ids are not the shipper's to account for.
    pub refused: Mutex<Vec<Range<u64>>>,
    /// Files renamed away (follow) or reconnections (tcp).
    pub turns: AtomicU64,
}

impl Source {
    pub fn refused(&self) -> Vec<Range<u64>> {
        self.refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// How many lines are due `started.elapsed()` into a run at `rate`/s, beyond `sent`.
fn due(started: Instant, rate: u64, sent: u64) -> u64 {
    let want = (started.elapsed().as_secs_f64() * rate as f64) as u64;
    want.saturating_sub(sent).min(MAX_BATCH)
}

fn lines(input: Input, ids: Range<u64>) -> Vec<u8> {
    let mut buf = Vec::with_capacity((ids.end - ids.start) as usize * 80);
    for id in ids {
        buf.extend_from_slice(input.line(id).as_bytes());
    }
    buf
}

/// Appends lines to `path` at `rate`/s until `stop`; renames it to `path.1` every
/// `rotate_every` lines and starts a new file.
pub fn follow(
    path: &Path,
    rate: u64,
    rotate_every: u64,
    stop: &AtomicBool,
    src: &Source,
) -> Result<(), String> {
    let open = |p: &Path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .map_err(|e| format!("cannot open {}: {e}", p.display()))
    };
    let mut file = open(path)?;
    let mut rotated: PathBuf = path.to_path_buf().into_os_string().into();
    rotated.as_mut_os_string().push(".1");
    let started = Instant::now();
    let mut in_file = 0u64;
    while !stop.load(Ordering::Acquire) {
        let sent = src.sent.load(Ordering::Acquire);
        let n = due(started, rate, sent).min(rotate_every - in_file);
        if n == 0 {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        file.write_all(&lines(Input::Follow, sent..sent + n))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        src.sent.store(sent + n, Ordering::Release);
        in_file += n;
        if in_file == rotate_every {
            std::fs::rename(path, &rotated)
                .map_err(|e| format!("cannot rotate {}: {e}", path.display()))?;
            file = open(path)?;
            in_file = 0;
            src.turns.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// Writes lines to 127.0.0.1:`port` at `rate`/s until `stop`, reconnecting after a
/// failed write (its ids kept as refused).
pub fn tcp(port: u16, rate: u64, stop: &AtomicBool, src: &Source) -> Result<(), String> {
    let connect = || -> Result<TcpStream, String> {
        let s = TcpStream::connect(("127.0.0.1", port))
            .map_err(|e| format!("cannot connect to logship's tcp://127.0.0.1:{port}: {e}"))?;
        s.set_write_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        Ok(s)
    };
    let mut stream = connect()?;
    let started = Instant::now();
    while !stop.load(Ordering::Acquire) {
        let sent = src.sent.load(Ordering::Acquire);
        let n = due(started, rate, sent);
        if n == 0 {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let written = stream.write_all(&lines(Input::Tcp, sent..sent + n));
        src.sent.store(sent + n, Ordering::Release);
        if written.is_err() {
            src.refused
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(sent..sent + n);
            src.turns.fetch_add(1, Ordering::Relaxed);
            stream = connect()?;
        }
    }
    Ok(())
}
