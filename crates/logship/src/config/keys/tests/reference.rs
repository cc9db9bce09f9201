//! `docs/configuration.md` holds exactly the reference rendered from the table.

use crate::config::keys;
use crate::config::reference::{markdown_table, BEGIN, END};

const DOCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/configuration.md");

/// The text between the two marker comments, if both are there.
fn generated_part(text: &str) -> Option<&str> {
    let start = text.find(BEGIN)? + BEGIN.len();
    let end = start + text[start..].find(END)?;
    Some(text[start..end].trim_matches('\n'))
}

#[test]
fn the_configuration_reference_lists_every_key_with_its_variable_flag_and_attribute() {
    let mut docs = std::fs::read_to_string(DOCS).unwrap_or_else(|e| panic!("{DOCS}: {e}"));
    let rendered = markdown_table();
    if std::env::var_os("LOGSHIP_BLESS").is_some() {
        let start = docs
            .find(BEGIN)
            .expect("docs/configuration.md has the BEGIN marker");
        let end = docs
            .find(END)
            .expect("docs/configuration.md has the END marker");
        docs = format!("{}{BEGIN}\n{rendered}{}", &docs[..start], &docs[end..]);
        std::fs::write(DOCS, &docs).expect("rewrite docs/configuration.md");
    }
    assert_eq!(
        generated_part(&docs),
        Some(rendered.trim_matches('\n')),
        "docs/configuration.md's reference differs from the key table \
         (crates/logship/src/config/keys/); regenerate it with \
         `LOGSHIP_BLESS=1 cargo test -p logship --lib config::keys::tests::reference`"
    );
    // What the README test checked, on the generated file: a row per key, with its
    // variable and its attribute.
    for key in keys::all() {
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", key.name)))
            .unwrap_or_else(|| panic!("the configuration reference has no row for {}", key.name));
        assert!(
            row.contains(&format!("`{}`", key.env_var())),
            "{}: {row}",
            key.name
        );
        if let Some(alias) = key.alias() {
            assert!(row.contains(&format!("`{alias}`")), "{}: {row}", key.name);
        }
    }
}
