//! The `logship` command's own options: what it follows (`[follow]`) and what it listens
//! on (`[listen]`), as rows of the one key table.
//!
//! Why it exists: a sidecar is configured by one file, one set of flags and one set of
//! variables, so these options have rows like every other option (a flag, a
//! `LOGSHIP_FOLLOW_*` / `LOGSHIP_LISTEN_*` variable, a key in the file's section, a line in
//! `config check`, `config example` and `docs/configuration.md`) and the command reads them
//! resolved from [`super::Config`]. The library itself never follows a file and never
//! listens: it only carries these values for the command, and must never act on them.
//! The checks that need the command's own parsers (glob patterns, multi-line rules, listen
//! URLs) are the command's; the ranges and choices here are checked like every key's.

use std::path::PathBuf;

use super::key::{Flag::*, Kind};
use super::key_parts::*;
use super::options::options;
use super::value::{list, quote};

const HOUR_MS: u64 = 3_600_000;

const PATTERNS: Kind = Kind::List {
    item: "path or glob",
    fix: "write paths = [\"/var/log/myapp/*.log\"]",
};
const URLS: Kind = Kind::List {
    item: "listen URL",
    fix: "write inputs = [\"http://127.0.0.1:8080\", \"syslog+udp://127.0.0.1:5514\"]",
};

/// `follow.start_at` choices.
pub const START_AT: &[&str] = &["beginning", "end"];
/// `follow.format` choices.
pub const FORMATS: &[&str] = &["text", "json", "docker", "cri"];
/// `listen.ack` choices.
pub const LISTEN_ACKS: &[&str] = &["queued", "delivered"];

options! {
    /// What `logship ship` follows: the file's `[follow]` section, the `--follow` flags and
    /// the `LOGSHIP_FOLLOW_*` variables (docs/follow.md). The library never reads these.
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct FollowOptions {
        setters: follow_setters,
        debug: generated,
        section: "follow",
        rows: [
            /// Paths or glob patterns to follow; with none, `ship` reads stdin or `--input`.
            paths: Vec<String> = Vec::new() => {
                name: "follow.paths",
                kind: PATTERNS,
                flag: Each("--follow"),
                default: "none (read stdin or `--input`)",
                doc: "paths or glob patterns to follow (a string or a list); with none, ship reads stdin",
                set: |c, v| c.paths = v.list(),
                get: |c| list(&c.paths),
            },
            /// Where a file seen at start-up without a checkpoint is read from.
            start_at: &'static str = START_AT[0] => {
                name: "follow.start_at",
                kind: Kind::Choice(START_AT),
                flag: Value("--start-at"),
                default: "`beginning`",
                doc: "where a file seen at start-up without a checkpoint is read from: `beginning` or `end`",
                set: |c, v| c.start_at = START_AT[v.choice()],
                get: |c| Some(quote(c.start_at)),
            },
            /// How a line becomes an event (`--input` and followed files).
            format: &'static str = FORMATS[0] => {
                name: "follow.format",
                kind: Kind::Choice(FORMATS),
                flag: Value("--format"),
                default: "`text`",
                doc: "how a line becomes an event: `text`, `json`, `docker` (json-file) or `cri` (containerd, CRI-O)",
                set: |c, v| c.format = FORMATS[v.choice()],
                get: |c| Some(quote(c.format)),
            },
            /// How multi-line events are joined (checked by the command): `java`,
            /// `timestamp`, `start:REGEX` or `continue:REGEX`. Unset: off.
            multiline: Option<String> = None => {
                name: "follow.multiline",
                kind: Kind::Str,
                flag: Value("--multiline"),
                default: "off",
                doc: "join multi-line events: `java`, `timestamp`, `start:REGEX` or `continue:REGEX`",
                set: |c, v| c.multiline = v.text(),
                get: |c| text(&c.multiline),
            },
            /// Most lines of one multi-line event (longer ones are split, and counted).
            multiline_max_lines: u64 = 500 => {
                name: "follow.multiline_max_lines",
                kind: int(1, 1_000_000, " lines"),
                flag: Value("--multiline-max-lines"),
                default: "500",
                doc: "most lines of one multi-line event (longer ones are split, and counted)",
                set: |c, v| c.multiline_max_lines = v.int(),
                get: |c| Some(c.multiline_max_lines.to_string()),
            },
            /// How long a multi-line event waits for its next line before it is shipped.
            multiline_timeout_ms: u64 = 1000 => {
                name: "follow.multiline_timeout_ms",
                kind: int(1, HOUR_MS, MS),
                flag: Value("--multiline-timeout-ms"),
                default: "1000",
                doc: "how long a multi-line event waits for its next line",
                set: |c, v| c.multiline_timeout_ms = v.int(),
                get: |c| Some(c.multiline_timeout_ms.to_string()),
            },
            /// Most files open at once (more matching files take turns).
            max_open_files: u64 = 256 => {
                name: "follow.max_open_files",
                kind: int(1, 1_000_000, " files"),
                flag: Value("--max-open-files"),
                default: "256",
                doc: "most files open at once (more matching files take turns)",
                set: |c, v| c.max_open_files = v.int(),
                get: |c| Some(c.max_open_files.to_string()),
            },
            /// How often the patterns are matched again and idle files checked.
            poll_interval_ms: u64 = 250 => {
                name: "follow.poll_interval_ms",
                kind: int(1, HOUR_MS, MS),
                flag: Value("--poll-interval-ms"),
                default: "250",
                doc: "how often the patterns are matched again and idle files checked",
                set: |c, v| c.poll_interval_ms = v.int(),
                get: |c| Some(c.poll_interval_ms.to_string()),
            },
            /// How long a rotated-away or deleted file is still read.
            rotate_wait_ms: u64 = 1000 => {
                name: "follow.rotate_wait_ms",
                kind: int(0, HOUR_MS, MS),
                flag: Value("--rotate-wait-ms"),
                default: "1000",
                doc: "how long a rotated-away or deleted file is still read",
                set: |c, v| c.rotate_wait_ms = v.int(),
                get: |c| Some(c.rotate_wait_ms.to_string()),
            },
            /// The checkpoint file: `None` for the default (`<spill_dir>.follow.json`),
            /// `Some(None)` for none at all (`false`, `--no-checkpoint`), or a path.
            checkpoint: Option<Option<PathBuf>> = None => {
                name: "follow.checkpoint",
                kind: Kind::PathOrOff,
                flag: ValueOrOff("--checkpoint", "--no-checkpoint"),
                default: "`<spill_dir>.follow.json`",
                doc: "the checkpoint file, or false for none",
                set: |c, v| c.checkpoint = v.path_or_off(),
                get: |c| match &c.checkpoint {
                    None => None,
                    Some(None) => Some("false".into()),
                    Some(Some(p)) => Some(quote(&p.display().to_string())),
                },
            },
            /// How often the checkpoint is brought up to date (after a flush).
            checkpoint_interval_ms: u64 = 1000 => {
                name: "follow.checkpoint_interval_ms",
                kind: int(1, HOUR_MS, MS),
                flag: Value("--checkpoint-interval-ms"),
                default: "1000",
                doc: "how often the checkpoint is brought up to date",
                set: |c, v| c.checkpoint_interval_ms = v.int(),
                get: |c| Some(c.checkpoint_interval_ms.to_string()),
            },
        ]
    }
}

options! {
    /// What `logship ship` listens on: the file's `[listen]` section, the `--listen` flags
    /// and the `LOGSHIP_LISTEN_*` variables (docs/listen.md). The library never listens.
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct ListenOptions {
        setters: listen_setters,
        debug: generated,
        section: "listen",
        rows: [
            /// Where to listen (checked by the command): `http://HOST:PORT`,
            /// `tcp://HOST:PORT`, `syslog+tcp://HOST:PORT`, `syslog+udp://HOST:PORT`.
            inputs: Vec<String> = Vec::new() => {
                name: "listen.inputs",
                kind: URLS,
                flag: Each("--listen"),
                default: "none",
                doc: "URLs to listen on: `http://`, `tcp://`, `syslog+tcp://`, `syslog+udp://` HOST:PORT (port 0 picks a free one)",
                set: |c, v| c.inputs = v.list(),
                get: |c| list(&c.inputs),
            },
            /// The token HTTP clients must send (`Authorization: Bearer TOKEN`,
            /// `X-Logship-Token`, or where each vendor API's clients send their key). A
            /// secret: never shown. Unset: no token check.
            token: Option<crate::Secret> = None => {
                name: "listen.token",
                kind: Kind::Secret,
                flag: Value("--listen-token"),
                default: "none (no token check)",
                doc: "the token HTTP clients must send; wrong or missing: 401",
                set: |c, v| c.token = v.secret(),
                get: |c| redacted(&c.token),
            },
            /// A file holding the listen token (its whole text, trimmed), read at
            /// start-up: keeps the token out of the command line (`/proc/PID/cmdline`),
            /// the environment and the config file. Not together with `listen.token`.
            token_file: Option<PathBuf> = None => {
                name: "listen.token_file",
                kind: Kind::Path,
                flag: Value("--listen-token-file"),
                default: "none",
                doc: "a file holding the listen token (keeps it out of the command line and the environment)",
                set: |c, v| c.token_file = v.text().map(Into::into),
                get: |c| c.token_file.as_ref().map(|p| quote(&p.display().to_string())),
            },
            /// When an HTTP request is answered: once its events are queued, or once they
            /// are delivered or durably spilled.
            ack: &'static str = LISTEN_ACKS[0] => {
                name: "listen.ack",
                kind: Kind::Choice(LISTEN_ACKS),
                flag: Value("--listen-ack"),
                default: "`queued`",
                doc: "when an HTTP request is answered: `queued`, or `delivered` (delivered or spilled)",
                set: |c, v| c.ack = LISTEN_ACKS[v.choice()],
                get: |c| Some(quote(c.ack)),
            },
            /// With `ack = "delivered"`: longest a request waits before it is answered 503.
            ack_timeout_ms: u64 = 10_000 => {
                name: "listen.ack_timeout_ms",
                kind: int(1, HOUR_MS, MS),
                flag: Value("--listen-ack-timeout-ms"),
                default: "10000",
                doc: "with `ack = \"delivered\"`: longest a request waits for delivery before 503",
                set: |c, v| c.ack_timeout_ms = v.int(),
                get: |c| Some(c.ack_timeout_ms.to_string()),
            },
            /// Largest HTTP request body, compressed or decompressed (413 beyond).
            max_body_bytes: u64 = 10 << 20 => {
                name: "listen.max_body_bytes",
                kind: int(1024, 1 << 30, BYTES),
                flag: Value("--listen-max-body-bytes"),
                default: "10 MiB",
                doc: "largest request body, compressed or decompressed (413 beyond)",
                set: |c, v| c.max_body_bytes = v.int(),
                get: |c| Some(c.max_body_bytes.to_string()),
            },
            /// Most connections open at once per listener. At the limit, an HTTP connection
            /// waiting for a request gives its slot to the new client; when every one is
            /// busy with a request, the new one is answered 503 and closed.
            max_connections: u64 = 256 => {
                name: "listen.max_connections",
                kind: int(1, 100_000, " connections"),
                flag: Value("--listen-max-connections"),
                default: "256",
                doc: "most connections open at once per listener (at the limit an idle HTTP connection makes room; when all are busy, 503 and close)",
                set: |c, v| c.max_connections = v.int(),
                get: |c| Some(c.max_connections.to_string()),
            },
            /// Longest wait for a request's head (408 and close beyond).
            header_timeout_ms: u64 = 10_000 => {
                name: "listen.header_timeout_ms",
                kind: int(1, HOUR_MS, MS),
                flag: Value("--listen-header-timeout-ms"),
                default: "10000",
                doc: "longest wait for a request's head (408 and close beyond: a slow client cannot hold a thread)",
                set: |c, v| c.header_timeout_ms = v.int(),
                get: |c| Some(c.header_timeout_ms.to_string()),
            },
            /// Longest wait for a request's body.
            body_timeout_ms: u64 = 30_000 => {
                name: "listen.body_timeout_ms",
                kind: int(1, HOUR_MS, MS),
                flag: Value("--listen-body-timeout-ms"),
                default: "30000",
                doc: "longest wait for a request's body",
                set: |c, v| c.body_timeout_ms = v.int(),
                get: |c| Some(c.body_timeout_ms.to_string()),
            },
            /// The `syslog+udp://` socket's kernel receive buffer (`SO_RCVBUF`): what a
            /// burst may queue before the kernel drops datagrams (counted as lost). 0 keeps
            /// the system's default; the kernel caps it at `net.core.rmem_max`.
            udp_receive_buffer_bytes: u64 = 0 => {
                name: "listen.udp_receive_buffer_bytes",
                kind: int(0, 1 << 30, BYTES),
                flag: Value("--listen-udp-receive-buffer-bytes"),
                default: "0 (the system's default)",
                doc: "the syslog+udp socket's receive buffer (SO_RCVBUF): room for bursts before the kernel drops datagrams, which are counted as lost",
                set: |c, v| c.udp_receive_buffer_bytes = v.int(),
                get: |c| Some(c.udp_receive_buffer_bytes.to_string()),
            },
            /// A connection idle this long is closed.
            idle_timeout_ms: u64 = 60_000 => {
                name: "listen.idle_timeout_ms",
                kind: int(1, HOUR_MS, MS),
                flag: Value("--listen-idle-timeout-ms"),
                default: "60000",
                doc: "a connection idle this long is closed",
                set: |c, v| c.idle_timeout_ms = v.int(),
                get: |c| Some(c.idle_timeout_ms.to_string()),
            },
        ]
    }
}
