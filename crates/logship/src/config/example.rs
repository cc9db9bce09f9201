//! `logship config example`: an annotated configuration file for one vendor.
//!
//! Why it exists: the quickest correct configuration is one printed by the tool, which
//! passes `config check` as it is. The vendor-specific part is prose about that intake;
//! the commented-out defaults are read from the table ([`super::keys::all`], through
//! each key's getter on [`Config::default`]), and a test checks that every key of the
//! table appears in the example of some vendor. The example must never contain a real
//! secret: API keys are `${env:VAR}` references with a placeholder default.

use super::key::Kind;
use super::keys;
use super::value::quote;
use super::{Config, Vendor};

/// The API key the example writes when the vendor's variable is unset. Validation refuses
/// it, so an example used as is fails at start-up naming the variable, instead of shipping
/// with a key that cannot work.
pub(crate) const PLACEHOLDER_KEY: &str = "replace-with-your-key";

/// Appends `# key = default` for each key, the default read from the table.
pub(crate) fn defaults(out: &mut String, names: &[&str]) {
    let config = Config::default();
    for name in names {
        let key = keys::find(name).expect("example keys are in the table");
        let value = key.get(&config).unwrap_or_default();
        out.push_str(&format!("# {name} = {value}\n"));
    }
}

/// An annotated TOML configuration for `vendor` that passes validation as it is (with a
/// placeholder API key read from the vendor's usual variable when set).
pub fn example_toml(vendor: Vendor) -> String {
    let mut out = String::new();
    out.push_str("# logship configuration. Every key is optional unless noted; the values shown\n");
    out.push_str(
        "# commented out are the defaults. Each key can also be set with the environment\n",
    );
    out.push_str(
        "# variable LOGSHIP_<KEY> (e.g. LOGSHIP_LINGER_MS=500), which wins over this file.\n",
    );
    out.push_str("# Strings may use ${env:VAR} or ${env:VAR:-default}.\n\n");
    out.push_str(&format!("vendor = {}\n", quote(vendor.name())));
    vendor.write_example(&mut out);
    if let Some(var) = vendor.api_key_env() {
        out.push_str(
            "# The API key: a secret, never printed. Prefer the environment to the file.\n",
        );
        out.push_str(&format!(
            "api_key = \"${{env:{var}:-{PLACEHOLDER_KEY}}}\"\n"
        ));
        out.push_str(
            "# Or the key alone in a file (mode 0600), read at start-up:\n# api_key_file = \"/run/secrets/logship-api-key\"\n",
        );
    }
    out.push_str("\nservice = \"checkout\"\n");
    out.push_str("tags = [\"env:prod\", \"team:payments\"]\n");
    out.push_str(
        "# The environment and version in each vendor's own fields (or its SDK's variables).\n# env = \"prod\"\n# version = \"1.4.2\"\n",
    );
    out.push_str(
        "# Span fields at the event's root (innermost span wins), or \"prefixed\" <span>.<field>.\n# span_fields = \"root\"\n",
    );
    out.push_str(
        "# Each event's id: a document `_id` where the intake takes one (replays are not stored twice), `logship.id` elsewhere.\n# event_id = true\n",
    );
    out.push_str("# source = \"rust\"\n# hostname = \"(this machine's)\"\n");
    out.push_str(
        "# Extra request headers (values are secrets):\n# [headers]\n# X-Scope = \"logs\"\n\n",
    );
    out.push_str("# Batching and memory.\n");
    defaults(
        &mut out,
        &["max_batch_records", "max_batch_bytes", "linger_ms"],
    );
    defaults(&mut out, &["queue_capacity", "queue_max_bytes"]);
    out.push_str(
        "# When set, a full queue makes the log call wait up to this long (else it drops).\n",
    );
    out.push_str("# block_timeout_ms = 100\n\n");
    out.push_str("# Sending.\n");
    out.push_str("# Requests in flight adapt between 1 and max_in_flight (fixed when off).\n");
    defaults(&mut out, &["max_in_flight", "adaptive_concurrency"]);
    defaults(&mut out, &["gzip", "gzip_level", "max_retries"]);
    defaults(
        &mut out,
        &["retry_initial_backoff_ms", "retry_max_backoff_ms"],
    );
    defaults(&mut out, &["connect_timeout_ms", "request_timeout_ms"]);
    defaults(
        &mut out,
        &["shutdown_timeout_ms", "max_event_bytes", "report_to_stderr"],
    );
    defaults(&mut out, &["flush_on_panic"]);
    out.push_str("\n# TLS and proxy (default: the system trust store, https_proxy/no_proxy).\n");
    out.push_str("# tls_ca_file = \"/etc/company/internal-ca.pem\"\n");
    out.push_str(
        "# tls_client_cert = \"/etc/app/client.pem\"\n# tls_client_key = \"/etc/app/client.key\"\n",
    );
    out.push_str("# tls_verify = true    # false: development only, loudly warned about\n");
    out.push_str("# proxy = \"http://proxy.internal:3128\"    # or \"none\"\n");
    out.push('\n');
    out.push_str("# Spill to disk what cannot be delivered now.\n");
    defaults(&mut out, &["spill_enabled"]);
    out.push_str("# spill_dir = \"~/.cache/logship/<service>\"\n");
    out.push_str(
        "# When the spill directory cannot be used, start without spill (false) or fail (true).\n",
    );
    defaults(&mut out, &["spill_required", "spill_in_flight_after_ms"]);
    defaults(&mut out, &["spill_max_bytes", "spill_segment_bytes"]);
    out.push_str("# spill_full = \"drop_oldest\"    # or drop_newest\n");
    out.push_str("# spill_fsync = \"on_segment_close\"    # or always, never\n");
    out.push('\n');
    out.push_str(
        "# Redact secrets and personal data before events leave the process (and the spill).\n",
    );
    defaults(&mut out, &["redact", "redact_fields", "redact_patterns"]);
    out.push_str("# redact_regexes = [\"order-[0-9]{6}\"]\n");
    out.push_str("# redact_action = \"mask\"    # or hash (needs redact_hash_key), drop\n");
    out.push_str("# redact_hash_key = \"${LOGSHIP_REDACT_HASH_KEY}\"    # a secret of 16+ bytes\n");
    out.push_str(
        "\n# Control at the source (default: off): burst limits per call site, sampling.\n",
    );
    out.push_str("# burst_limits = [\"info=100/1000\", \"warn=100/1000\"]    # level=rate/burst; errors only if listed\n");
    defaults(&mut out, &["burst_sites", "burst_summary_interval_ms"]);
    out.push_str("# sample_rates = [\"debug=10%\"]\n");
    defaults(&mut out, &["sample_by_trace", "drop_notices"]);
    out.push_str("\n# Volume budgets (UTC hours and days; default: no cap). At 80 % one warning\n");
    out.push_str("# event ships; past 100 % TRACE/DEBUG go first, then INFO/WARN are sampled,\n");
    out.push_str("# then everything is dropped; each counted in stats().\n");
    out.push_str("# budget_hour_bytes = 500000000\n# budget_day_bytes = 5000000000\n");
    out.push_str("# budget_hour_events = 1000000\n# budget_day_events = 10000000\n");
    out.push_str("# budget_level_hour_bytes = [\"debug=100000000\"]    # one level's own cap\n");
    out.push_str("# budget_level_day_bytes = [\"debug=1000000000\"]\n");
    defaults(
        &mut out,
        &["budget_overdraft_percent", "budget_sample_percent"],
    );
    out.push_str("# budget_state_file = \"<spill_dir>/budget.json\"\n");
    out.push_str(
        "\n# Watching the shipper: health `stalled` when nothing is delivered this long.\n",
    );
    out.push_str("# stall_after_ms = 60000\n");
    defaults(&mut out, &["metrics_interval_ms"]);
    sections(&mut out);
    out
}

/// The `logship` command's sections (`[follow]`, `[listen]`), every line a comment so the
/// example stays valid as it is: each key's doc, and its default (or an illustration).
fn sections(out: &mut String) {
    let config = Config::default();
    for section in keys::sections() {
        out.push_str(&format!(
            "\n# The `logship` command's [{section}] section (docs/{section}.md); flags override it.\n# [{section}]\n"
        ));
        for key in keys::all().filter(|k| k.section == Some(section)) {
            let short = key.name.rsplit('.').next().unwrap_or(key.name);
            let value = match (key.get(&config), key.kind) {
                (Some(v), _) => v,
                (None, Kind::List { fix, .. }) => fix
                    .split_once(" = ")
                    .map_or_else(|| "[]".to_owned(), |(_, v)| v.to_owned()),
                (None, _) => quote("..."),
            };
            out.push_str(&format!(
                "# {short} = {value}    # {}; default: {}\n",
                key.doc, key.default
            ));
        }
    }
}
