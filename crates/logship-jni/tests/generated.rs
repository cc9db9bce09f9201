//! The Java side's attribute lists are generated from the key table: this test writes
//! what they must be and fails when `java/` holds something else.
//!
//! Why it exists: every option of the key table is an attribute of the Log4j2 plugin and
//! a bean setter of the Logback appender (issue 31, points 2 and 3), with no list kept by
//! hand. After adding a key: `LOGSHIP_BLESS=1 cargo test -p logship-jni --test generated`.

use std::path::PathBuf;

const HEADER: &str = "// Generated from the key table (crates/logship/src/config/keys/) by\n\
// crates/logship-jni/tests/generated.rs; do not edit: after adding a key run\n\
// `LOGSHIP_BLESS=1 cargo test -p logship-jni --test generated`.\n";

fn attributes() -> Vec<(String, &'static str)> {
    logship::keys()
        .filter_map(|k| k.attribute().map(|a| (a, k.doc())))
        .collect()
}

fn javadoc(doc: &str) -> String {
    doc.replace("*/", "* /")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn log4j2() -> String {
    let mut s = format!(
        "{HEADER}package dev.logship.log4j2;\n\n\
         import java.util.List;\n\
         import org.apache.logging.log4j.core.appender.AbstractAppender;\n\
         import org.apache.logging.log4j.core.config.plugins.PluginBuilderAttribute;\n\n\
         /**\n * Every option of logship's key table as a Log4j2 attribute, named in camelCase after\n \
         * its key. Values stay text here (lookups already resolved by Log4j2): the native side\n \
         * reads them as the key's type and fails naming the attribute and the fix.\n */\n\
         public abstract class KeyTableAttributes<B extends KeyTableAttributes<B>>\n        \
         extends AbstractAppender.Builder<B> {{\n"
    );
    for (a, doc) in attributes() {
        let mut cap = a.clone();
        cap[..1].make_ascii_uppercase();
        s += &format!(
            "    /** {doc}. */\n    @PluginBuilderAttribute(\"{a}\")\n    private String {a};\n\n    \
             /**\n     * Sets {a}: {doc}.\n     *\n     * @param value the option's value\n     * @return this builder\n     */\n    \
             public B set{cap}(final String value) {{\n        this.{a} = value;\n        return asBuilder();\n    }}\n\n",
            doc = javadoc(doc)
        );
    }
    s += "    /**\n     * Sets an attribute by its name, as a configuration file would.\n     *\n     * @return this builder\n     * @throws IllegalArgumentException when no key has this attribute\n     */\n    public B setAttribute(final String name, final String value) {\n        switch (name) {\n";
    for (a, _) in attributes() {
        s += &format!(
            "            case \"{a}\":\n                {a} = value;\n                break;\n"
        );
    }
    s += "            default:\n                throw new IllegalArgumentException(\"logship: no option has the attribute \" + name);\n        }\n        return asBuilder();\n    }\n\n";
    s += "    /** Adds the attributes given (not null) to {@code out} as name, value pairs. */\n    protected void givenAttributes(final List<String> out) {\n";
    for (a, _) in attributes() {
        s += &format!("        add(out, \"{a}\", {a});\n");
    }
    s += "    }\n\n    private static void add(final List<String> out, final String name, final String value) {\n        if (value != null) {\n            out.add(name);\n            out.add(value);\n        }\n    }\n}\n";
    s
}

fn logback() -> String {
    let mut s = format!(
        "{HEADER}package dev.logship.logback;\n\n\
         import ch.qos.logback.classic.spi.ILoggingEvent;\n\
         import ch.qos.logback.core.UnsynchronizedAppenderBase;\n\
         import java.util.LinkedHashMap;\n\
         import java.util.List;\n\
         import java.util.Map;\n\n\
         /**\n * Every option of logship's key table as a Logback bean property ({{@code <lingerMillis>}}),\n \
         * named in camelCase after its key. Values stay text: the native side reads them as the\n \
         * key's type and fails naming the option and the fix.\n */\n\
         public abstract class KeyTableSetters extends UnsynchronizedAppenderBase<ILoggingEvent> {{\n\
         \x20   private final Map<String, String> given = new LinkedHashMap<>();\n\n"
    );
    for (a, doc) in attributes() {
        let mut cap = a.clone();
        cap[..1].make_ascii_uppercase();
        s += &format!(
            "    /**\n     * {}.\n     *\n     * @param value the option's value\n     */\n    public void set{cap}(final String value) {{\n        given.put(\"{a}\", value);\n    }}\n\n",
            javadoc(doc)
        );
    }
    s += "    /** Adds the options given to {@code out} as name, value pairs. */\n    protected void givenAttributes(final List<String> out) {\n        for (Map.Entry<String, String> e : given.entrySet()) {\n            if (e.getValue() != null) {\n                out.add(e.getKey());\n                out.add(e.getValue());\n            }\n        }\n    }\n}\n";
    s
}

fn check(path: &str, want: String) {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    if std::env::var_os("LOGSHIP_BLESS").is_some() {
        std::fs::write(&file, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        have == want,
        "{path} is stale: run `LOGSHIP_BLESS=1 cargo test -p logship-jni --test generated`"
    );
}

#[test]
fn the_log4j2_attributes_are_the_key_table() {
    check(
        "java/src/main/java/dev/logship/log4j2/KeyTableAttributes.java",
        log4j2(),
    );
}

#[test]
fn the_logback_setters_are_the_key_table() {
    check(
        "java/src/main/java/dev/logship/logback/KeyTableSetters.java",
        logback(),
    );
}
