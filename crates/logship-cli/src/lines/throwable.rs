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

/// `thrown.extendedStackTrace` as Java prints it (`name: message`, then
/// `\tat class.method(File.java:12)` lines, each cause after a `Caused by:` line): a string as it is (`stacktraceAsString`), an
/// array of frames formatted.
pub(super) fn stack_text(thrown: &Members<'_>) -> Option<String> {
    let mut out = String::new();
    let mut at = Some(thrown);
    let mut depth = 0;
    while let Some(t) = at {
        match t.get("extendedStackTrace") {
            Some(Json::String(s)) => return Some(s.to_string()),
            Some(Json::Array(frames)) => {
                let text = |k: &str| t.get(k).and_then(Json::as_str).unwrap_or("");
                // The first line as `printStackTrace` writes it (`stacktraceAsString`
                // carries it already).
                let header = if depth > 0 { "Caused by: " } else { "" };
                match text("message") {
                    "" => out.push_str(&format!("{header}{}\n", text("name"))),
                    m => out.push_str(&format!("{header}{}: {m}\n", text("name"))),
                }
                for frame in frames.iter().take(MAX_FRAMES) {
                    let text = |k: &str| frame.get(k).and_then(Json::as_str).unwrap_or("?");
                    let line = frame.get("line").and_then(Json::as_i64).unwrap_or(-1);
                    out.push_str(&format!(
                        "\tat {}.{}({}:{line})\n",
                        text("class"),
                        text("method"),
                        text("file")
                    ));
                }
            }
            _ => {}
        }
        depth += 1;
        at = match t.get("cause") {
            Some(Json::Object(c)) if depth <= MAX_CAUSES => Some(c),
            _ => None,
        };
    }
    (!out.is_empty()).then_some(out)
}
