//! A real Apache Kafka broker (single node, KRaft) for tests, started through the
//! repository's `scripts/kafka-broker.sh` from Maven Central's jars, run by the JDK.
//!
//! Why it exists: the Kafka output and input must be tested against the real broker, not a
//! mock (no container image can be fetched here). Each test gets its own broker (own
//! directory, own free ports on 127.0.0.1, own throwaway TLS certificates), stopped when dropped, and killed by the script's
//! watcher if the test process dies first. Without `java`/`mvn` a test skips with a note,
//! except under `CI=true`, where that is a failure (`.ci/run` installs them and fetches the
//! jars).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::external::require;

/// A running broker, stopped on drop.
pub struct KafkaBroker {
    script: PathBuf,
    dir: PathBuf,
    /// The PLAINTEXT port on 127.0.0.1.
    pub port: u16,
    /// The SASL_PLAINTEXT port (mechanisms PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, user
    /// `logship`, password [`SASL_PASSWORD`]).
    pub sasl_port: u16,
    /// The SSL port: TLS that requires a client certificate ([`KafkaBroker::client_cert`]).
    pub ssl_port: u16,
    /// The SASL_SSL port: TLS (no client certificate) with the SASL mechanisms above.
    pub sasl_ssl_port: u16,
}

/// The SASL password of the broker's `logship` user.
pub const SASL_PASSWORD: &str = "logship-test-secret";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

impl KafkaBroker {
    /// Starts a broker in a fresh directory named after `name`; `None` (skipped, with a
    /// note) when java or mvn is missing outside CI.
    pub fn start(name: &str) -> Option<KafkaBroker> {
        require("java")?;
        require("mvn")?;
        require("openssl")?;
        let dir = std::env::temp_dir().join(format!("logship-kafka-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut broker = KafkaBroker {
            script: workspace_root().join("scripts/kafka-broker.sh"),
            dir,
            port: 0,
            sasl_port: 0,
            ssl_port: 0,
            sasl_ssl_port: 0,
        };
        broker.port = broker.run("start");
        let port_in = |file: &str| -> u16 {
            std::fs::read_to_string(broker.dir.join(file))
                .ok()
                .and_then(|p| p.trim().parse().ok())
                .unwrap_or_else(|| panic!("the script writes {file}"))
        };
        broker.sasl_port = port_in("sasl.port");
        broker.ssl_port = port_in("ssl.port");
        broker.sasl_ssl_port = port_in("sasl_ssl.port");
        Some(broker)
    }

    /// The CA that signed the broker's (and the client's) test certificate, PEM.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("tls/ca.pem")
    }

    /// A client certificate the SSL listener accepts, and its key (PEM files).
    pub fn client_cert(&self) -> (PathBuf, PathBuf) {
        (
            self.dir.join("tls/client.pem"),
            self.dir.join("tls/client.key"),
        )
    }

    fn run(&self, what: &str) -> u16 {
        let out = Command::new("bash")
            .arg(&self.script)
            .arg(what)
            .arg(&self.dir)
            .env("LOGSHIP_KAFKA_OWNER_PID", std::process::id().to_string())
            .env("LOGSHIP_KAFKA_SASL_PASSWORD", SASL_PASSWORD)
            .output()
            .expect("run scripts/kafka-broker.sh");
        assert!(
            out.status.success(),
            "kafka-broker.sh {what} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log_tail()
        );
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(0)
    }

    /// `127.0.0.1:port` of the PLAINTEXT listener.
    pub fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The broker's process id (for CPU figures), while it runs.
    pub fn pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.dir.join("broker.pid"))
            .ok()
            .and_then(|p| p.trim().parse().ok())
    }

    /// Stops the broker (SIGTERM, waiting for it), keeping its data.
    pub fn stop(&self) {
        self.run("stop");
    }

    /// Starts it again on the same ports with the same data.
    pub fn restart(&self) {
        let port = self.run("start");
        assert_eq!(port, self.port, "a restarted broker keeps its port");
    }

    /// The end of the broker's log, for failure messages.
    pub fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("broker.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for KafkaBroker {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(&self.script)
            .arg("stop")
            .arg(&self.dir)
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
