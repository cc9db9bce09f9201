//! A Java exception as Log4j2's `JsonLayout` writes it (`thrown`), read into an error
//! value and a stack trace as Java prints it.
//!
//! Why it exists: an exception is the event's error, not a blob of fields; this is the
//! one reader of Log4j2's shape. Must never: recurse on input (causes and frames are read
//! iteratively, each bounded).

use super::json::{Json, Members};

/// Most causes of one Log4j2 `thrown` read (deeper ones are left out).
const MAX_CAUSES: usize = 16;

/// A Java exception as Log4j2's `JsonLayout` writes it (`thrown`: `name`, `message`,
/// `cause`...), as an error value: its `Debug` is the simple class name (the record reads
/// the error's kind from it), its `Display` the message, its `source` the cause.
#[derive(Default)]
pub(super) struct Throwable {
    simple_name: String,
    name: String,
    message: String,
    /// A cause's `Display` is `name: message`, as Java prints a `Caused by:` line.
    is_cause: bool,
    cause: Option<Box<Throwable>>,
}

impl Throwable {
    /// Reads `thrown` and its causes (iteratively, at most [`MAX_CAUSES`]).
    pub(super) fn read(thrown: &Members<'_>) -> Throwable {
        let one = |t: &Members<'_>, is_cause| {
            let text = |k: &str| t.get(k).and_then(Json::as_str).unwrap_or("").to_owned();
            let name = text("name");
            Throwable {
                simple_name: name.rsplit(['.', '$']).next().unwrap_or("").to_owned(),
                name,
                message: text("message"),
                is_cause,
                cause: None,
            }
        };
        let mut chain = vec![one(thrown, false)];
        let mut at = thrown;
        while let Some(Json::Object(cause)) = at.get("cause") {
            if chain.len() > MAX_CAUSES {
                break;
            }
            chain.push(one(cause, true));
            at = cause;
        }
        let mut inner: Option<Box<Throwable>> = None;
        while let Some(mut t) = chain.pop() {
            t.cause = inner.take();
            inner = Some(Box::new(t));
        }
        inner.map(|b| *b).unwrap_or_default()
    }
}

impl std::fmt::Debug for Throwable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.simple_name)
    }
}

impl std::fmt::Display for Throwable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.is_cause, self.message.is_empty()) {
            (true, true) => f.write_str(&self.name),
            (true, false) => write!(f, "{}: {}", self.name, self.message),
            (false, _) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Throwable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

/// Most stack frames written per exception in `thrown.extendedStackTrace`.
const MAX_FRAMES: usize = 256;

/// Most exceptions (the thrown, its causes and suppressed ones, theirs) one stack text
/// holds; the rest are left out.
const MAX_THROWABLES: usize = 64;

/// `thrown.extendedStackTrace` as `printStackTrace` prints it: `name: message`, then
/// `\tat class.method(File.java:12)` lines, each suppressed exception after a
/// `\tSuppressed:` line (one tab deeper per level, before the cause), each cause after a
/// `Caused by:` line, the frames shared with the enclosing exception as `... n more`. A string (`stacktraceAsString`) is taken as it is; an array of
/// frames is formatted. Read with a stack of its own, never recursively.
pub(super) fn stack_text(thrown: &Members<'_>) -> Option<String> {
    if let Some(Json::String(s)) = thrown.get("extendedStackTrace") {
        return Some(s.to_string());
    }
    let mut out = String::new();
    // (exception, its first line's prefix, its depth in tabs): popped last-in first-out,
    // so a node's suppressed exceptions are pushed after its cause.
    let mut todo: Vec<(&Members<'_>, &str, usize)> = vec![(thrown, "", 0)];
    let mut seen = 0;
    while let Some((t, prefix, depth)) = todo.pop() {
        seen += 1;
        if seen > MAX_THROWABLES {
            break;
        }
        let text = |k: &str| t.get(k).and_then(Json::as_str).unwrap_or("");
        let tabs = "\t".repeat(depth);
        out.push_str(&tabs);
        out.push_str(prefix);
        out.push_str(text("name"));
        if !text("message").is_empty() {
            out.push_str(": ");
            out.push_str(text("message"));
        }
        out.push('\n');
        match t.get("extendedStackTrace") {
            Some(Json::Array(frames)) => {
                for frame in frames.iter().take(MAX_FRAMES) {
                    let text = |k: &str| frame.get(k).and_then(Json::as_str).unwrap_or("?");
                    let line = frame.get("line").and_then(Json::as_i64).unwrap_or(-1);
                    // As `StackTraceElement.toString` writes the place.
                    let file = frame.get("file").and_then(Json::as_str);
                    let place = match (file, line) {
                        (_, -2) => "Native Method".to_owned(),
                        (None, _) => "Unknown Source".to_owned(),
                        (Some(f), l) if l < 0 => f.to_owned(),
                        (Some(f), l) => format!("{f}:{l}"),
                    };
                    out.push_str(&format!(
                        "{tabs}\tat {}.{}({place})\n",
                        text("class"),
                        text("method"),
                    ));
                }
            }
            Some(Json::String(s)) => {
                out.push_str(s);
                out.push('\n');
            }
            _ => {}
        }
        // The frames it shares with the exception that encloses it: Log4j2 leaves them
        // out of a cause's or suppressed exception's frames, as Java does.
        match t.get("commonElementCount").and_then(Json::as_i64) {
            Some(n) if n > 0 => out.push_str(&format!("{tabs}\t... {n} more\n")),
            _ => {}
        }
        if let Some(Json::Object(cause)) = t.get("cause") {
            todo.push((cause, "Caused by: ", depth));
        }
        if let Some(Json::Array(suppressed)) = t.get("suppressed") {
            for s in suppressed.iter().rev() {
                if let Json::Object(s) = s {
                    todo.push((s, "Suppressed: ", depth + 1));
                }
            }
        }
        if todo.len() > MAX_THROWABLES {
            todo.truncate(MAX_THROWABLES);
        }
    }
    (!out.is_empty()).then_some(out)
}
