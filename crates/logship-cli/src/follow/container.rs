//! Container log files: Docker's `json-file` driver and the CRI format of containerd and
//! CRI-O, and the Kubernetes names in their standard paths.
//!
//! Why it exists: on a Kubernetes node (or a sidecar sharing `/var/log/pods`), the files
//! to follow are written by the container runtime, not the application: each line wraps
//! the application's line with its stream and time, and long lines are split into
//! partial pieces that must be joined back. The pod, namespace and container are only in
//! the file's path, and they are what people search by.
//!
//! Must never: panic or recurse on a malformed line (it is shipped as it is, marked
//! `logship.parse_error`), join more than the line cap of partial pieces, or invent
//! Kubernetes fields from a path that does not have the standard shape.

use std::path::Path;

/// One decoded runtime line.
#[derive(Debug, PartialEq, Eq)]
pub struct Piece {
    /// The application's bytes (without the runtime's trailing newline).
    pub message: Vec<u8>,
    /// `stdout` or `stderr`.
    pub stream: String,
    /// The runtime's timestamp, as Unix nanoseconds (when it parsed).
    pub time_nanos: Option<u64>,
    /// True when the application's line continues in the next piece.
    pub partial: bool,
}

/// Decodes a Docker `json-file` line: `{"log":"...\n","stream":"stdout","time":"..."}`.
/// A `log` without its trailing newline is a partial piece (Docker splits lines over
/// 16 KiB).
pub fn docker(line: &[u8]) -> Option<Piece> {
    #[derive(serde::Deserialize)]
    struct Line {
        log: String,
        #[serde(default)]
        stream: String,
        #[serde(default)]
        time: String,
    }
    let parsed: Line = serde_json::from_slice(line).ok()?;
    let (message, partial) = match parsed.log.strip_suffix('\n') {
        Some(m) => (m.strip_suffix('\r').unwrap_or(m), false),
        None => (parsed.log.as_str(), true),
    };
    Some(Piece {
        message: message.as_bytes().to_vec(),
        stream: parsed.stream,
        time_nanos: rfc3339_nanos(&parsed.time),
        partial,
    })
}

/// Decodes a CRI line: `TIMESTAMP STREAM P|F MESSAGE` (`P` partial, `F` full).
pub fn cri(line: &[u8]) -> Option<Piece> {
    let mut parts = line.splitn(4, |&b| b == b' ');
    let time = std::str::from_utf8(parts.next()?).ok()?;
    let stream = std::str::from_utf8(parts.next()?).ok()?;
    let tag = parts.next()?;
    let message = parts.next().unwrap_or_default();
    if stream != "stdout" && stream != "stderr" {
        return None;
    }
    // The tag may carry more flags after ':' in future versions; the first is P or F.
    let partial = match tag.split(|&b| b == b':').next()? {
        b"P" => true,
        b"F" => false,
        _ => return None,
    };
    Some(Piece {
        message: message.to_vec(),
        stream: stream.to_owned(),
        time_nanos: Some(rfc3339_nanos(time)?),
        partial,
    })
}

/// The Kubernetes fields in a standard log path:
/// `/var/log/pods/<namespace>_<pod>_<uid>/<container>/<restart>.log` or
/// `/var/log/containers/<pod>_<namespace>_<container>-<container id>.log`.
pub fn k8s_fields(path: &Path) -> Vec<(&'static str, String)> {
    let parts: Vec<&str> = path.iter().filter_map(|c| c.to_str()).collect();
    if let Some(i) = parts.iter().rposition(|c| *c == "pods") {
        if let (Some(dir), Some(container), Some(_file)) =
            (parts.get(i + 1), parts.get(i + 2), parts.get(i + 3))
        {
            let mut it = dir.splitn(3, '_');
            if let (Some(ns), Some(pod), Some(uid)) = (it.next(), it.next(), it.next()) {
                return vec![
                    ("k8s.namespace.name", ns.to_owned()),
                    ("k8s.pod.name", pod.to_owned()),
                    ("k8s.pod.uid", uid.to_owned()),
                    ("k8s.container.name", (*container).to_owned()),
                ];
            }
        }
    }
    if parts.len() >= 2 && parts[parts.len() - 2] == "containers" {
        let name = parts[parts.len() - 1]
            .strip_suffix(".log")
            .unwrap_or_default();
        let mut it = name.splitn(3, '_');
        if let (Some(pod), Some(ns), Some(rest)) = (it.next(), it.next(), it.next()) {
            if let Some((container, id)) = rest.rsplit_once('-') {
                if id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return vec![
                        ("k8s.namespace.name", ns.to_owned()),
                        ("k8s.pod.name", pod.to_owned()),
                        ("k8s.container.name", container.to_owned()),
                        ("container.id", id.to_owned()),
                    ];
                }
            }
        }
    }
    Vec::new()
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` as Unix nanoseconds; `None` when it is
/// not one (or before 1970). The runtime's timestamps are RFC 3339, read by the same
/// parser as JSON lines' times.
pub fn rfc3339_nanos(s: &str) -> Option<u64> {
    crate::lines::time::parse_rfc3339(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_to_unix_nanos() {
        assert_eq!(rfc3339_nanos("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_nanos("2016-10-06T00:17:09.669794202Z"),
            Some(1_475_713_029_669_794_202)
        );
        assert_eq!(
            rfc3339_nanos("2016-10-06T02:17:09.5+02:00"),
            Some(1_475_713_029_500_000_000)
        );
        for bad in [
            "",
            "2016-10-06",
            "2016-13-06T00:17:09Z",
            "2016-10-06T00:17:09",
            "x016-10-06T00:17:09Z",
            "2016-10-06T00:17:09.Z",
        ] {
            assert_eq!(rfc3339_nanos(bad), None, "{bad}");
        }
    }

    #[test]
    fn docker_and_cri_lines_decode_with_partials() {
        let p = docker(
            br#"{"log":"hello\n","stream":"stderr","time":"2016-10-06T00:17:09.669794202Z"}"#,
        )
        .unwrap();
        assert_eq!(
            (p.message.as_slice(), p.stream.as_str(), p.partial),
            (&b"hello"[..], "stderr", false)
        );
        assert_eq!(p.time_nanos, Some(1_475_713_029_669_794_202));
        assert!(
            docker(br#"{"log":"part","stream":"stdout","time":"x"}"#)
                .unwrap()
                .partial
        );
        assert!(docker(b"not json").is_none());
        assert!(docker(br#"{"stream":"stdout"}"#).is_none());
        let p = cri(b"2016-10-06T00:17:09.669794202Z stdout P the first half ").unwrap();
        assert_eq!(
            (p.message.as_slice(), p.partial),
            (&b"the first half "[..], true)
        );
        let p = cri(b"2016-10-06T00:17:09.669794202Z stderr F").unwrap();
        assert_eq!((p.message.as_slice(), p.partial), (&b""[..], false));
        assert!(cri(b"2016-10-06T00:17:09Z stdin F x").is_none());
        assert!(cri(b"garbage").is_none());
        assert!(cri(b"2016-10-06T00:17:09Z stdout X x").is_none());
    }

    #[test]
    fn kubernetes_names_come_from_the_standard_paths_only() {
        let f = k8s_fields(Path::new(
            "/var/log/pods/shop_checkout-7d4b9_0f1e2d3c-aaaa-bbbb-cccc-1234567890ab/app/0.log",
        ));
        assert_eq!(
            f,
            [
                ("k8s.namespace.name", "shop".to_owned()),
                ("k8s.pod.name", "checkout-7d4b9".to_owned()),
                (
                    "k8s.pod.uid",
                    "0f1e2d3c-aaaa-bbbb-cccc-1234567890ab".to_owned()
                ),
                ("k8s.container.name", "app".to_owned()),
            ]
        );
        let id = "a".repeat(64);
        let f = k8s_fields(Path::new(&format!(
            "/var/log/containers/checkout-7d4b9_shop_app-side-{id}.log"
        )));
        assert_eq!(f[2], ("k8s.container.name", "app-side".to_owned()));
        assert_eq!(f[1], ("k8s.pod.name", "checkout-7d4b9".to_owned()));
        assert!(k8s_fields(Path::new("/var/log/app/app.log")).is_empty());
        assert!(k8s_fields(Path::new("/var/log/containers/short.log")).is_empty());
    }
}
