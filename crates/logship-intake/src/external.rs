//! Real third-party servers (nginx, tinyproxy) started as child processes for tests.
//!
//! Why it exists: logship must work through the servers companies actually put in front
//! of intakes: a TLS-terminating nginx, a forward proxy. Each is started here from its
//! Debian package's binary with a config file in a private temporary directory, on a free
//! port of 127.0.0.1 only, and killed when dropped. A test whose program is not installed
//! is told so and skips, except under `CI=true`, where that is a failure (`.ci/run`
//! installs them). Nothing here listens anywhere but 127.0.0.1.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Finds `program` (on `PATH`, `/usr/sbin`, `/usr/bin`). Missing: `None` with a note on
/// stderr, or a panic when `CI=true` (CI installs every program the tests need).
pub fn require(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|d| d.join(program))
        .find(|p| p.is_file());
    if found.is_none() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{program} is not installed, and CI=true: .ci/run must install it");
        }
        eprintln!("SKIPPED: {program} is not installed (apt-get install it; CI does)");
    }
    found
}

/// A free port on 127.0.0.1 (bound and released: another process could take it in
/// between, which the start-up wait would then show).
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

/// A server running as a child process, killed (and its directory removed) on drop.
pub struct ExternalServer {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its private directory (config, logs, pid file).
    pub dir: PathBuf,
}

impl std::fmt::Debug for ExternalServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalServer")
            .field("port", &self.port)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl ExternalServer {
    /// Starts `command` (its output goes to files in `dir`) and waits until `port`
    /// accepts connections (at most 20 s); `Err` with its log when it does not.
    pub fn start(mut command: Command, port: u16, dir: PathBuf) -> Result<ExternalServer, String> {
        let out = std::fs::File::create(dir.join("stdout.log")).map_err(|e| e.to_string())?;
        let err = std::fs::File::create(dir.join("stderr.log")).map_err(|e| e.to_string())?;
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let mut server = ExternalServer { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok() {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!(
                    "{command:?} exited with {status}: {}",
                    server.logs()
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{command:?} did not listen on {port}: {}",
                    server.logs()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything the server wrote to its log files so far.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.extension().is_some_and(|e| e == "log") {
                out.push_str(&format!("--- {}\n", p.display()));
                out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
        out
    }
}

impl Drop for ExternalServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fresh private directory for one server.
fn private_dir(name: &str) -> Result<PathBuf, String> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("logship-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// Settings of [`nginx_tls_proxy`].
#[derive(Clone, Debug)]
pub struct NginxSettings {
    /// The certificate chain and key nginx serves (PEM).
    pub cert_pem: String,
    /// The key of `cert_pem` (PEM).
    pub key_pem: String,
    /// `client_max_body_size` (bytes): larger request bodies get nginx's own 413.
    pub client_max_body_size: usize,
    /// `keepalive_requests`: nginx closes a client connection after this many requests.
    pub keepalive_requests: u32,
}

/// nginx terminating TLS on a free port and passing every request to
/// `http://127.0.0.1:upstream` (HTTP/1.1, kept-alive upstream connections).
pub fn nginx_tls_proxy(
    program: &Path,
    upstream: u16,
    settings: &NginxSettings,
) -> Result<ExternalServer, String> {
    let dir = private_dir("nginx")?;
    std::fs::write(dir.join("cert.pem"), &settings.cert_pem).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("key.pem"), &settings.key_pem).map_err(|e| e.to_string())?;
    let port = free_port();
    let d = dir.display();
    let user = if is_root() { "user root;\n" } else { "" };
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\n{user}pid {d}/nginx.pid;\n\
         error_log {d}/error.log info;\nevents {{ worker_connections 512; }}\n\
         http {{\n  access_log {d}/access.log;\n  client_body_temp_path {d}/body;\n\
           proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n\
           uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
           upstream intake {{ server 127.0.0.1:{upstream}; keepalive 16; }}\n\
           server {{\n    listen 127.0.0.1:{port} ssl;\n\
             ssl_certificate {d}/cert.pem;\n    ssl_certificate_key {d}/key.pem;\n\
             client_max_body_size {max};\n    keepalive_requests {keep};\n\
             location / {{\n      proxy_pass http://intake;\n      proxy_http_version 1.1;\n\
               proxy_set_header Connection \"\";\n      proxy_request_buffering on;\n    }}\n\
           }}\n}}\n",
        max = settings.client_max_body_size,
        keep = settings.keepalive_requests,
    );
    let conf_path = dir.join("nginx.conf");
    std::fs::write(&conf_path, conf).map_err(|e| e.to_string())?;
    let mut command = Command::new(program);
    command
        .arg("-p")
        .arg(&dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(&conf_path);
    ExternalServer::start(command, port, dir)
}

/// tinyproxy on a free port, allowing CONNECT to any port; with `basic_auth`
/// (`user`, `password`) it requires those credentials (407 otherwise). Its log
/// (`tinyproxy.log` in its directory) shows each request it carried.
pub fn tinyproxy(
    program: &Path,
    basic_auth: Option<(&str, &str)>,
) -> Result<ExternalServer, String> {
    let dir = private_dir("tinyproxy")?;
    let port = free_port();
    let d = dir.display();
    let mut conf = format!(
        "Port {port}\nListen 127.0.0.1\nTimeout 30\nLogFile \"{d}/tinyproxy.log\"\nLogLevel Info\n\
         PidFile \"{d}/tinyproxy.pid\"\nMaxClients 64\nAllow 127.0.0.1\nDisableViaHeader Yes\n"
    );
    if is_root() {
        conf.push_str("User root\nGroup root\n");
    }
    if let Some((user, password)) = basic_auth {
        conf.push_str(&format!("BasicAuth {user} {password}\n"));
    }
    let conf_path = dir.join("tinyproxy.conf");
    std::fs::write(&conf_path, conf).map_err(|e| e.to_string())?;
    let mut command = Command::new(program);
    command.arg("-d").arg("-c").arg(&conf_path);
    ExternalServer::start(command, port, dir)
}

fn is_root() -> bool {
    // The effective user: root in CI (and in this project's containers).
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}
