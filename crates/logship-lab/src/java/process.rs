//! The processes of one Java lab configuration: the Java service (compiled from
//! `lab/java/` with Debian's Log4j2) and, where the configuration ships through logship,
//! the `logship ship` sidecar.
//!
//! Why it exists: the lab must run the programs a user runs, not models of them: the
//! stock appenders inside a real JVM, and the same `logship` binary a user deploys. It
//! must never leave a process running: both are killed when dropped.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use logship_cli::exit::Failure;

/// The jars the Java service needs, as Debian installs them.
const JARS: &[&str] = &[
    "/usr/share/java/log4j-api.jar",
    "/usr/share/java/log4j-core.jar",
    "/usr/share/java/disruptor.jar",
    "/usr/share/java/jackson-core.jar",
    "/usr/share/java/jackson-databind.jar",
    "/usr/share/java/jackson-annotations.jar",
];
/// What to install when something is missing.
const INSTALL: &str = "apt-get install openjdk-17-jdk-headless liblog4j2-java libdisruptor-java libjackson2-databind-java";
/// Lines of the sidecar's stderr kept for the report (its summary is at the end).
const KEEP_LINES: usize = 60;

/// The compiled Java service: its class path and the folder of its Log4j2 configurations.
pub struct JavaService {
    /// `lab/java`: LabService.java and the log4j2-*.xml files.
    pub dir: PathBuf,
    /// The jars and the compiled classes.
    pub class_path: String,
}

impl JavaService {
    /// Compiles `dir/LabService.java` into `classes`; a usage error naming the package to
    /// install when Java or a jar is missing.
    pub fn compile(dir: &Path, classes: &Path) -> Result<JavaService, Failure> {
        let missing: Vec<&str> = JARS
            .iter()
            .copied()
            .filter(|j| !Path::new(j).exists())
            .collect();
        if !missing.is_empty() {
            return Err(Failure::usage(format!(
                "--java: missing {}; {INSTALL}",
                missing.join(", ")
            )));
        }
        let source = dir.join("LabService.java");
        if !source.exists() {
            return Err(Failure::usage(format!(
                "--java: no {} (run from the repository root, or pass --java-lab DIR)",
                source.display()
            )));
        }
        std::fs::create_dir_all(classes)
            .map_err(|e| Failure::runtime(format!("cannot create {}: {e}", classes.display())))?;
        let jars = JARS.join(":");
        let out = Command::new("javac")
            .args(["-cp", &jars, "-d"])
            .arg(classes)
            .arg(&source)
            .output()
            .map_err(|e| Failure::usage(format!("--java: cannot run javac ({e}); {INSTALL}")))?;
        if !out.status.success() {
            return Err(Failure::runtime(format!(
                "javac {}: {}",
                source.display(),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(JavaService {
            dir: dir.to_path_buf(),
            class_path: format!("{jars}:{}", classes.display()),
        })
    }

    /// The `java` command line for one configuration: async loggers (the disruptor ring
    /// of `ring` slots), the configuration file, the `lab.*` system properties it reads,
    /// and `jar` (logship's) on the class path when given.
    pub fn command(
        &self,
        xml: &str,
        ring: usize,
        threads: usize,
        jar: Option<&Path>,
        props: &[(&str, String)],
    ) -> Command {
        let mut cmd = Command::new("java");
        let class_path = match jar {
            Some(jar) => format!("{}:{}", jar.display(), self.class_path),
            None => self.class_path.clone(),
        };
        cmd.args(["-cp", &class_path])
            .arg("-Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector")
            .arg(format!("-Dlog4j2.asyncLoggerRingBufferSize={ring}"))
            // Without TCP_NODELAY the JDK server's two writes per answer (head, body) wait
            // for the client's delayed ACK: every request would take 40 ms.
            .arg("-Dsun.net.httpserver.nodelay=true")
            .arg(format!(
                "-Dlog4j.configurationFile={}",
                self.dir.join(xml).display()
            ));
        for (k, v) in props {
            cmd.arg(format!("-D{k}={v}"));
        }
        cmd.args(["LabService", &threads.to_string()]);
        cmd
    }
}

/// A running `logship ship` sidecar; killed if still running when dropped.
pub struct Sidecar {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Sidecar {
    /// Starts `LOGSHIP ship ARGS` and, when `listens`, waits for its `listening on` line;
    /// returns it and the port it listens on.
    pub fn start(
        logship: &Path,
        args: &[String],
        listens: bool,
    ) -> Result<(Sidecar, Option<u16>), Failure> {
        let mut child = Command::new(logship)
            .arg("ship")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                Failure::runtime(format!(
                    "cannot start {} ship: {e} (build it with `cargo build --release -p logship-cli`, or name it with --logship)",
                    logship.display()
                ))
            })?;
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (port_tx, port_rx) = mpsc::channel();
        let mut reader = None;
        if let Some(err) = child.stderr.take() {
            let lines = Arc::clone(&lines);
            reader = Some(std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    if let Some(port) = line
                        .strip_prefix("logship: listening on ")
                        .and_then(|url| url.rsplit(':').next())
                        .and_then(|p| p.trim().parse::<u16>().ok())
                    {
                        let _ = port_tx.send(port);
                    }
                    let mut kept = lines.lock().unwrap_or_else(PoisonError::into_inner);
                    if kept.len() == KEEP_LINES {
                        kept.remove(0);
                    }
                    kept.push(line);
                }
            }));
        }
        let sidecar = Sidecar {
            child,
            lines,
            reader,
        };
        if !listens {
            return Ok((sidecar, None));
        }
        match port_rx.recv_timeout(Duration::from_secs(30)) {
            Ok(port) => Ok((sidecar, Some(port))),
            Err(_) => Err(Failure::runtime(format!(
                "logship ship did not start listening: {}",
                sidecar.lines().join(" | ")
            ))),
        }
    }

    /// What it printed on stderr (the last lines).
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Its peak resident memory so far, bytes (0 where unknown).
    pub fn peak_rss_bytes(&self) -> u64 {
        logship_cli::memory::proc_status_bytes(&self.child.id().to_string(), "VmHWM:").unwrap_or(0)
    }

    /// Sends SIGTERM and waits at most `grace` for the exit code (`None` if it had to be
    /// killed); returns it with the last lines it printed (its summary).
    pub fn stop(mut self, grace: Duration) -> (Option<i32>, Vec<String>) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Its stderr is at its end: the reader has taken the last lines.
                if let Some(reader) = self.reader.take() {
                    let _ = reader.join();
                }
                return (status.code(), self.lines());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        (None, self.lines())
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
