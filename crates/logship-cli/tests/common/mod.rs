//! Helpers shared by the CLI's end-to-end test binaries (each uses only part of them).
#![allow(dead_code, unused_imports)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A fresh path under the target's temporary directory.
pub fn temp_path(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}-{n}", std::process::id()))
}

/// The integer after `label` on its row of a `logship demo` table.
pub fn row(table: &str, label: &str) -> u64 {
    table
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} row in:\n{table}"))
}

/// The `logship` binary, with its own cache directory so that default spill directories
/// of tests running in parallel never collide, and without the OpenTelemetry and Datadog
/// variables of the machine running the tests (`--vendor otlp` and `--vendor datadog`
/// read them).
/// Sends signal `sig` (`STOP`, `CONT`, `TERM`...) to process `pid`.
pub fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .expect("kill")
        .success();
    assert!(ok, "kill -{sig}");
}

pub fn logship() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_logship"));
    command.env("XDG_CACHE_HOME", temp_path("cache"));
    for (var, _) in std::env::vars_os() {
        let name = var.to_string_lossy();
        if name.starts_with("OTEL_") || name.starts_with("DD_") {
            command.env_remove(var);
        }
    }
    command
}

pub use logship_intake::processes::{run_with_stdin, watchdog};

/// Longest any child of a command test may run before the watchdog kills it.
pub const WATCHDOG: Duration = Duration::from_secs(120);

/// Runs `logship args...` with `stdin` as its standard input and collects its output.
pub fn run(args: &[&str], stdin: &[u8]) -> std::process::Output {
    run_with_stdin(logship().args(args), stdin, WATCHDOG)
}

/// A child's stderr as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A child's stdout as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The message of every event the intake accepted, sorted.
pub fn messages(intake: &logship_intake::Intake) -> Vec<String> {
    let mut m: Vec<String> = intake
        .events()
        .iter()
        .map(|e| e.value["message"].as_str().unwrap_or("<none>").to_owned())
        .collect();
    m.sort();
    m
}

pub mod follow;
pub mod hostile;
pub mod listen;

/// A child's stderr, collected line by line on a thread of its own, so a test can wait for
/// a line without polling.
pub struct StderrLines(std::sync::Arc<(std::sync::Mutex<Vec<String>>, std::sync::Condvar)>);

impl StderrLines {
    /// Starts collecting `child`'s piped stderr (until it closes).
    pub fn collect(child: &mut std::process::Child) -> StderrLines {
        use std::io::BufRead as _;
        let shared = std::sync::Arc::new((std::sync::Mutex::new(Vec::new()), Default::default()));
        let lines = std::sync::Arc::clone(&shared);
        let pipe = child.stderr.take().expect("stderr piped");
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(pipe).lines().map_while(Result::ok) {
                let (all, changed): &(std::sync::Mutex<Vec<String>>, std::sync::Condvar) = &lines;
                all.lock().unwrap().push(line);
                changed.notify_all();
            }
        });
        StderrLines(shared)
    }

    /// Waits up to `wait` for a line containing `text`; true when one arrived.
    pub fn wait_for(&self, text: &str, wait: std::time::Duration) -> bool {
        let (all, changed) = &*self.0;
        let deadline = std::time::Instant::now() + wait;
        let mut lines = all.lock().unwrap();
        while !lines.iter().any(|l| l.contains(text)) {
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            lines = changed.wait_timeout(lines, deadline - now).unwrap().0;
        }
        true
    }

    /// Waits up to `wait` for a line containing `text`, failing the test without one.
    pub fn expect(&self, text: &str, wait: std::time::Duration) {
        assert!(
            self.wait_for(text, wait),
            "no stderr line with {text:?}: {:?}",
            self.lines()
        );
    }

    /// The port of the `scheme` listener (`http`, `tcp`, `syslog+udp`, ...) once
    /// `logship: listening on SCHEME://127.0.0.1:PORT` was printed (waits up to `wait`).
    pub fn listener_port(&self, scheme: &str, wait: std::time::Duration) -> u16 {
        let prefix = format!("logship: listening on {scheme}://127.0.0.1:");
        self.expect(&prefix, wait);
        self.lines()
            .iter()
            .find_map(|l| l.strip_prefix(prefix.as_str())?.parse().ok())
            .expect("port")
    }

    /// Every line so far.
    pub fn lines(&self) -> Vec<String> {
        self.0 .0.lock().unwrap().clone()
    }
}

/// The test intake's binary, `logship-intake` (package logship-intake; built when needed).
pub fn intake_command() -> std::process::Command {
    let path = logship_intake::processes::workspace_binary("logship-intake", "logship-intake");
    std::process::Command::new(path)
}

/// Starts `logship-intake --port 0 ...` and returns the child, its stdout reader and its
/// port.
pub fn start_intake(
    extra: &[&str],
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStdout>,
    u16,
) {
    let mut child = intake_command()
        .args(["--port", "0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn logship-intake");
    let mut out = BufReader::new(child.stdout.take().expect("stdout piped"));
    let mut line = String::new();
    out.read_line(&mut line).expect("listening line");
    let port = line
        .trim()
        .strip_prefix("listening on http://127.0.0.1:")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (child, out, port)
}

/// One HTTP/1.1 exchange on a fresh connection; returns the whole response.
pub fn http(port: u16, head: &str, body: &[u8]) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let request = format!(
        "{head}\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("write head");
    stream.write_all(body).expect("write body");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read response");
    response
}

/// How long a [`ShipProcess`] waits for its summary after it exited.
const SUMMARY_WAIT: Duration = Duration::from_secs(60);

/// A running `logship ship ... --linger-ms 20 --endpoint URL` (listeners, followers)
/// with its stderr collected, under a watchdog; killed when dropped, so a failed
/// assertion never leaves it running.
pub struct ShipProcess {
    /// The process.
    pub child: std::process::Child,
    /// Its stderr, line by line.
    pub stderr: StderrLines,
    done: std::sync::mpsc::Sender<()>,
}

impl ShipProcess {
    /// Starts `logship ship ARGS --linger-ms 20 --endpoint ENDPOINT`; the watchdog kills
    /// it after `limit`.
    pub fn start(endpoint: &str, args: &[&str], limit: Duration) -> ShipProcess {
        let mut child = logship()
            .arg("ship")
            .args(args)
            .args(["--linger-ms", "20", "--endpoint", endpoint])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn logship ship");
        let done = watchdog(&child, limit);
        let stderr = StderrLines::collect(&mut child);
        ShipProcess {
            child,
            stderr,
            done,
        }
    }

    /// The port of its `scheme` listener once it printed it.
    pub fn port(&self, scheme: &str) -> u16 {
        self.stderr.listener_port(scheme, SUMMARY_WAIT)
    }

    /// Waits for it to exit on its own (the watchdog bounds the wait) and for its outcome
    /// line, the last it prints; the exit code and stderr. For a process that shuts itself
    /// down: a signal sent while it does would be its second, which stops it at once.
    pub fn wait_exit(&mut self) -> (Option<i32>, Vec<String>) {
        let status = self.child.wait().expect("wait");
        let _ = self.done.send(());
        self.stderr.expect("outcome: ", SUMMARY_WAIT);
        (status.code(), self.stderr.lines())
    }

    /// SIGTERM; the exit code and stderr (the summary printed).
    pub fn stop(&mut self) -> (Option<i32>, Vec<String>) {
        self.stop_with("TERM")
    }

    /// Sends `sig` (one that stops it), waits for the exit and the summary; the exit code
    /// and stderr.
    pub fn stop_with(&mut self, sig: &str) -> (Option<i32>, Vec<String>) {
        let ok = std::process::Command::new("kill")
            .args([&format!("-{sig}"), &self.child.id().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{sig}");
        let status = self.child.wait().expect("wait");
        let _ = self.done.send(());
        self.stderr.expect("shipped", SUMMARY_WAIT);
        (status.code(), self.stderr.lines())
    }
}

impl Drop for ShipProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
