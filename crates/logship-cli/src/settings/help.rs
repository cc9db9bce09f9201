//! How a key's flag reads in `--help`: its value name, from the key's type, and its help
//! line, from the key's doc, default and environment variable.
//!
//! Why it exists: the help of a generated flag must say as much as a hand-written one did,
//! from nothing but the row (`KeySpec`), so that it cannot drift from the file's and the
//! environment's documentation of the same key. Must never: show a value (defaults are
//! the row's documented text, never a secret).

use logship::KeySpec;

/// The heading a key's flag is listed under.
pub(super) fn heading(key: &KeySpec) -> String {
    match key.section() {
        None => "Pipeline options".to_owned(),
        Some(section) => format!("{} options (with --{section})", capitalised(section)),
    }
}

/// The value name of a key's flag, from its type: `MS`, `BYTES`, `N`, `URL`, `FILE`,
/// `DIR`, `a|b|c` for a choice, the list item (`KEY:VALUE,...`) for a list, and the key's
/// own name (`SERVICE`) for a plain string.
pub(super) fn value_name(key: &KeySpec) -> String {
    let kind = key.type_name();
    let short = key.name().rsplit('.').next().unwrap_or(key.name());
    if let Some(range) = kind.strip_prefix("integer ") {
        return if range.ends_with(" milliseconds") {
            "MS".into()
        } else if range.ends_with(" bytes") {
            "BYTES".into()
        } else {
            "N".into()
        };
    }
    if let Some(choices) = key.choices() {
        return choices.join("|");
    }
    if let Some(item) = kind
        .strip_prefix("list of \"")
        .and_then(|i| i.strip_suffix('"'))
    {
        let item = item.to_ascii_uppercase().replace(' ', "_");
        return if key.flag().takes_value() && !matches!(key.flag(), logship::CliFlag::Each(_)) {
            format!("{item},...")
        } else {
            item
        };
    }
    match kind.as_str() {
        "URL" => "URL".into(),
        "vendor name" => "VENDOR".into(),
        "path" if short.ends_with("_dir") => "DIR".into(),
        "path" | "path, or false" => "FILE".into(),
        k if k.starts_with("table of header") => "'NAME: VALUE'".into(),
        _ => short.to_ascii_uppercase(),
    }
}

/// The help line of a key's flag: its doc, its default and its variable (a switch that
/// turns a key off says so first).
pub(super) fn text(key: &KeySpec) -> String {
    let mut out = match key.flag() {
        logship::CliFlag::Off(_) => format!("sets {} to false: ", key.name()),
        _ => String::new(),
    };
    out.push_str(&plain(key.doc()));
    if key.flag().repeatable() {
        out.push_str(" (repeatable)");
    }
    out.push_str(&format!(
        " [default: {}] [env: {}]",
        plain(key.default_value()),
        key.env()
    ));
    out
}

/// The help line of a key's "off" switch (`--no-checkpoint`).
pub(super) fn off_text(key: &KeySpec) -> String {
    format!(
        "no {} at all: sets {} to false [env: {}=false]",
        key.name().rsplit('.').next().unwrap_or(key.name()),
        key.name(),
        key.env()
    )
}

/// Text without the docs' Markdown code marks.
fn plain(text: &str) -> String {
    text.replace('`', "")
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> KeySpec {
        logship::keys()
            .find(|k| k.name() == name)
            .expect("a key of the table")
    }

    #[test]
    fn value_names_come_from_the_type() {
        for (name, want) in [
            ("linger_ms", "MS"),
            ("max_batch_bytes", "BYTES"),
            ("max_retries", "N"),
            ("endpoint", "URL"),
            ("vendor", "VENDOR"),
            ("spill_dir", "DIR"),
            ("tls_ca_file", "FILE"),
            ("follow.checkpoint", "FILE"),
            ("spill_fsync", "on_segment_close|always|never"),
            ("tags", "KEY:VALUE,..."),
            ("follow.paths", "PATH_OR_GLOB"),
            ("headers", "'NAME: VALUE'"),
            ("service", "SERVICE"),
        ] {
            assert_eq!(value_name(&key(name)), want, "{name}");
        }
    }

    #[test]
    fn help_says_the_doc_the_default_and_the_variable() {
        let help = text(&key("linger_ms"));
        assert!(help.starts_with("flush when"), "{help}");
        let off = text(&key("gzip"));
        assert!(
            off.starts_with("sets gzip to false: gzip request bodies"),
            "{off}"
        );
        assert!(
            help.ends_with("[default: 1000] [env: LOGSHIP_LINGER_MS]"),
            "{help}"
        );
        assert_eq!(
            heading(&key("follow.paths")),
            "Follow options (with --follow)"
        );
        assert!(off_text(&key("follow.checkpoint")).contains("follow.checkpoint to false"));
    }
}
