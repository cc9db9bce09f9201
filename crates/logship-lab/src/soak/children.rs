//! The soak's two child processes: the real `logship-intake` (restarted on the same port
//! to take it down; it records the ids it accepted in a file the soak reads as it grows) and the `logship ship` process under test, plus the intake's control
//! requests (`/_intake/delay`, `/_intake/fail`, `/_intake/misbehave`).
//!
//! Why it exists: the soak must run the binaries users and CI run, not in-process
//! stand-ins. Must never: leave a child running when the soak ends (each is killed on
//! drop), or miss an id the intake recorded before it stopped (its reader runs to the
//! end of the record, which the intake syncs before it exits, before `stop` returns).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::ids::{Input, Seen};

/// The running intake: its child, port and the thread marking the ids it prints.
pub struct IntakeChild {
    child: Child,
    pub port: u16,
    reader: Option<JoinHandle<()>>,
    /// Set once the child exited: its record is complete, the reader reads to the end.
    exited: Arc<AtomicBool>,
}

/// Marks the ids of an intake's `--record-ids` file (8 bytes each) as it grows, until
/// `exited` is set and the file was read to its end.
fn read_record(mut file: std::fs::File, seen: &Seen, exited: &AtomicBool) {
    let mut buf = vec![0u8; 1 << 16];
    let mut have = 0;
    loop {
        // Read `exited` before the file: set, the file is whole once this read ends.
        let last = exited.load(Ordering::Acquire);
        // A read error is taken as the end: its ids then show as missing, never hidden.
        let n = file.read(&mut buf[have..]).unwrap_or_default();
        have += n;
        let whole = have - have % 8;
        for word in buf[..whole].chunks_exact(8) {
            let mut b = [0u8; 8];
            b.copy_from_slice(word);
            seen.mark_word(u64::from_le_bytes(b));
        }
        buf.copy_within(whole..have, 0);
        have -= whole;
        if n == 0 {
            if last {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl IntakeChild {
    /// Starts `bin --port PORT --count-only --record-ids FILE --id-marker …` (0: a free
    /// port), retrying a busy port for 10 s (the previous intake's socket may linger);
    /// every id it records is marked in `seen` (the file, next to `log`, is read as it
    /// grows and removed once read to its end after the intake stopped), and its stderr
    /// (progress lines) is appended to `log`.
    pub fn start(
        bin: &Path,
        port: u16,
        seen: Arc<Seen>,
        log: &Path,
    ) -> Result<IntakeChild, String> {
        static STARTS: AtomicU64 = AtomicU64::new(0);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let stderr = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
            let record = log.with_file_name(format!(
                "intake-{}.ids",
                STARTS.fetch_add(1, Ordering::Relaxed)
            ));
            let mut args = vec![
                "--port".to_owned(),
                port.to_string(),
                "--count-only".into(),
                "--record-ids".into(),
                record.to_string_lossy().into_owned(),
            ];
            for input in Input::ALL {
                args.extend(["--id-marker".to_owned(), input.marker().to_owned()]);
            }
            let mut child = Command::new(bin)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(stderr)
                .spawn()
                .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
            let mut out = BufReader::new(child.stdout.take().ok_or("no intake stdout")?);
            let mut first = String::new();
            let _ = out.read_line(&mut first);
            let bound = first
                .trim()
                .strip_prefix("listening on http://127.0.0.1:")
                .and_then(|p| p.parse::<u16>().ok());
            match bound {
                Some(port) => {
                    let file = std::fs::File::open(&record)
                        .map_err(|e| format!("cannot read {}: {e}", record.display()))?;
                    let exited = Arc::new(AtomicBool::new(false));
                    let done = Arc::clone(&exited);
                    let reader = std::thread::spawn(move || {
                        read_record(file, &seen, &done);
                        // The intake's summary (a few lines: the pipe holds them until then).
                        let _ = std::io::copy(&mut out, &mut std::io::sink());
                        let _ = std::fs::remove_file(&record);
                    });
                    return Ok(IntakeChild {
                        child,
                        port,
                        reader: Some(reader),
                        exited,
                    });
                }
                None => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let _ = std::fs::remove_file(&record);
                    if Instant::now() >= deadline {
                        return Err(format!(
                            "the intake did not start on port {port}: {first:?}"
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
        }
    }

    /// SIGTERM, then waits for the exit and for every recorded id to be read.
    pub fn stop(mut self) {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let _ = self.child.wait();
        self.exited.store(true, Ordering::Release);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }

    /// One control request (`POST /_intake/<what>`); an error is reported, not fatal.
    pub fn control(&self, what: &str) -> Result<(), String> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        write!(
            s,
            "POST /_intake/{what} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .map_err(|e| e.to_string())?;
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        if answer.starts_with("HTTP/1.1 200") {
            Ok(())
        } else {
            Err(format!("control {what}: {answer:?}"))
        }
    }
}

impl Drop for IntakeChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `logship ship` process under test, with its stderr kept (at most `KEEP` lines).
pub struct ShipChild {
    child: Child,
    stderr: Arc<Mutex<Vec<String>>>,
    reader: Option<JoinHandle<()>>,
}

/// Stderr lines kept from one logship run (outage lines come two per outage).
const KEEP: usize = 20_000;

impl ShipChild {
    /// Starts `bin ship ARGS`.
    pub fn start(bin: &Path, args: &[String]) -> Result<ShipChild, String> {
        let mut child = Command::new(bin)
            .arg("ship")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        let err = BufReader::new(child.stderr.take().ok_or("no logship stderr")?);
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&stderr);
        let reader = std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                let mut k = kept.lock().unwrap_or_else(PoisonError::into_inner);
                if k.len() < KEEP {
                    k.push(line);
                }
            }
        });
        Ok(ShipChild {
            child,
            stderr,
            reader: Some(reader),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The stderr lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The port of its `tcp://` listener, once it printed it (at most `wait`).
    pub fn tcp_port(&self, wait: Duration) -> Result<u16, String> {
        let deadline = Instant::now() + wait;
        loop {
            let port = self.lines().iter().find_map(|l| {
                l.split("listening on tcp://127.0.0.1:")
                    .nth(1)
                    .and_then(|p| p.trim().parse::<u16>().ok())
            });
            if let Some(port) = port {
                return Ok(port);
            }
            if Instant::now() >= deadline {
                return Err(format!("logship printed no tcp port: {:?}", self.lines()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM (a stop with its drain), then the exit status and every stderr line.
    pub fn stop(mut self) -> (Option<ExitStatus>, Vec<String>) {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let status = self.child.wait().ok();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        (status, self.lines())
    }
}

impl Drop for ShipChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `name` next to this executable (where cargo builds the workspace's binaries).
pub fn sibling(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join(name)))
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Resident memory (bytes) and open descriptors of process `pid`; `None` once it is gone.
pub fn rss_and_fds(pid: u32) -> Option<(u64, u64)> {
    let rss = logship_cli::memory::proc_status_bytes(&pid.to_string(), "VmRSS:")?;
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u64;
    Some((rss, fds))
}
