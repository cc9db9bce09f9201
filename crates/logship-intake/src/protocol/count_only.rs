//! The count-only mode: accept and count, check nothing.
//!
//! Why it exists: the strict protocols parse every event into JSON and check it, which
//! costs two to three times the CPU of the shipper they test (docs/performance.md). A
//! throughput figure taken against them measures the intake. Peers publish theirs
//! against discarding sinks; this is ours, so the two can be compared. It still reads
//! and decodes the whole body (gzip or deflate, with the usual size limit) and counts
//! its non-blank lines, so the benchmark can tell when every event has arrived. It must
//! never be used where a test relies on the checks: it accepts anything.

use std::sync::Arc;

use serde_json::json;

use super::shared::{decode_body, require_post, Accepted, Rejection};
use logship_http::Request;

/// Accepts any `POST` whose body decodes, as `200 {"accepted":N}` with N its non-blank
/// lines (one event per line: NDJSON, or any line-based body).
///
/// With `probe`, each line's `"probe":NUMBER` (or `"probe":"NUMBER"`) is also handed
/// back as `{probe: NUMBER}` for the observer. With `markers`, each line's first
/// `MARKER` followed by digits is handed back as `{"marker": INDEX, "id": NUMBER}`
/// (INDEX: the marker's place in `markers`).
pub(crate) fn handle(
    req: &Request,
    probe: Option<&str>,
    markers: &[Arc<str>],
) -> Result<Accepted, Rejection> {
    require_post(req)?;
    let body = decode_body(req)?;
    let events = count_lines(&body);
    let mut accepted = Accepted::new(
        Vec::new(),
        body.len(),
        logship_http::answers::generic::accepted(events),
    );
    accepted.counted = events;
    if let Some(name) = probe {
        accepted.probes = probe_lines(&body, name)
            .map(|n| json!({ name: n }))
            .collect();
    }
    if !markers.is_empty() {
        accepted.probes.extend(
            marked_ids(&body, markers).map(|(marker, id)| json!({ "marker": marker, "id": id })),
        );
    }
    Ok(accepted)
}

/// The number after the first `"name":` of each line that has one (quoted or not,
/// spaces allowed after the colon); lines without one, or with something else there,
/// give nothing.
fn probe_lines<'a>(body: &'a [u8], name: &str) -> impl Iterator<Item = u64> + 'a {
    let needle = format!("\"{name}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes()).into_owned();
    lines(body).filter_map(move |line| {
        let at = finder.find(line)? + finder.needle().len();
        let rest = line[at..].strip_prefix(b":")?;
        let rest = rest.trim_ascii_start();
        let rest = rest.strip_prefix(b"\"").unwrap_or(rest);
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
    })
}

/// For each line holding one of `markers` followed by at least one digit: the index of
/// the first such marker (in `markers` order) and the number after it. Text only: no
/// JSON is parsed, so the marker may sit inside a string value (`"message":"soak f=12 …"`).
fn marked_ids<'a>(body: &'a [u8], markers: &[Arc<str>]) -> impl Iterator<Item = (usize, u64)> + 'a {
    let finders: Vec<memchr::memmem::Finder<'static>> = markers
        .iter()
        .map(|m| memchr::memmem::Finder::new(m.as_bytes()).into_owned())
        .collect();
    lines(body).filter_map(move |line| {
        finders.iter().enumerate().find_map(|(i, finder)| {
            let rest = &line[finder.find(line)? + finder.needle().len()..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let id = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
            Some((i, id))
        })
    })
}

/// The body's lines without their `\n`, the part after the last one included (empty when
/// the body ends with one), found with `memchr`.
fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', body)
        .chain(std::iter::once(body.len()))
        .map(move |end| {
            let line = &body[start..end];
            start = end + 1;
            line
        })
}

/// Lines holding anything but spaces, tabs and carriage returns.
fn count_lines(body: &[u8]) -> usize {
    // An event line starts with its first character: `all` stops there.
    lines(body)
        .filter(|line| !line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')))
        .count()
}

#[cfg(test)]
mod tests {
    use super::{count_lines, marked_ids, probe_lines};
    use std::sync::Arc;

    #[test]
    fn markers_give_the_number_after_the_first_marker_of_each_line() {
        let body = concat!(
            "{\"message\":\"soak f=17 fox\"}\n",
            "{\"message\":\"soak t=18\"}\n",
            "{\"message\":\"soak t=x soak f=19\"}\n",
            "{\"message\":\"soak f= 20\"}\n",
            "{\"message\":\"soak t=99999999999999999999999\"}\n",
            "no marker\n",
            "soak t=21",
        );
        let markers: Vec<Arc<str>> = vec![Arc::from("soak f="), Arc::from("soak t=")];
        let got: Vec<(usize, u64)> = marked_ids(body.as_bytes(), &markers).collect();
        assert_eq!(got, vec![(0, 17), (1, 18), (0, 19), (1, 21)]);
    }

    #[test]
    fn the_probe_finds_the_field_quoted_or_not_at_any_depth_and_skips_the_rest() {
        let body = concat!(
            "{\"t_us\":17}\n",
            "{\"contextMap\":{\"t_us\":\"18\"},\"x\":1}\n",
            "{\"t_us\": 19, \"t_us\": 99}\n",
            "{\"no\":1}\n",
            "{\"t_us\":\"abc\"}\n",
            "{\"t_us\":-5}\n",
            "{\"t_us\":99999999999999999999999}\n",
            "{\"t_us\"",
        );
        let got: Vec<u64> = probe_lines(body.as_bytes(), "t_us").collect();
        assert_eq!(got, vec![17, 18, 19]);
    }

    #[test]
    fn counts_non_blank_lines_with_or_without_a_final_newline() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"{}\n{}\n"), 2);
        assert_eq!(count_lines(b"{}\n\n \r\n{}"), 2);
        assert_eq!(count_lines(b"\n\n"), 0);
    }
}
