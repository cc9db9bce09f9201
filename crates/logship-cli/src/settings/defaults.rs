//! The `logship` command's own defaults: the keys whose default differs from the
//! library's when nobody set them (no flag, no `LOGSHIP_*` variable, no file).
//!
//! Why it exists: an application's logger and a command-line shipper want different
//! defaults for a few keys; each such default is one row here, with its reason, and is
//! applied in one place after resolution, so that a value set anywhere always wins and
//! `config check` shows what `ship` would use. Must never: override a value that came from
//! a flag, the environment or a file.

use std::collections::BTreeMap;

use logship::{Config, Origin};

use super::problem::invalid;
use logship_cli::exit::Failure;

/// What a run of the command is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// `demo`, `spill replay`: the pipeline only.
    Pipeline,
    /// `ship` reading stdin or `--input` once.
    Ship,
    /// `ship --follow` and/or `--listen`: a service until a signal.
    Service,
}

/// One default of the command.
struct CommandDefault {
    /// The key.
    key: &'static str,
    /// Its value, as the key's variable would give it.
    value: &'static str,
    /// The runs it applies to.
    uses: &'static [Use],
    /// The vendors it applies to (by name); empty: every vendor.
    vendors: &'static [&'static str],
}

/// Every default of the command that is not the library's.
const DEFAULTS: &[CommandDefault] = &[
    // A command-line run can afford to wait longer than an application's exit.
    CommandDefault {
        key: "shutdown_timeout_ms",
        value: "30000",
        uses: &[Use::Pipeline, Use::Ship, Use::Service],
        vendors: &[],
    },
    // Reading a file, stdin or a connection is faster than any intake accepts events:
    // the reader waits for room (the library's longest wait) instead of dropping. The
    // follower and the TCP inputs retry after it; HTTP answers 503.
    CommandDefault {
        key: "block_timeout_ms",
        value: "60000",
        uses: &[Use::Ship, Use::Service],
        vendors: &[],
    },
    // Kafka's own producers put up to 10,000 messages in one produce request (librdkafka's
    // `batch.num.messages`), and the Kafka output waits for a whole batch's delivery
    // reports: at 200 events a batch it was latency-bound, 231 to 336 k events/s against
    // 418 to 618 k at 2,000 (docs/performance.md, Kafka round 6). `max_batch_bytes` (1
    // MiB) still cuts a batch of large events first. Before the next row: the first row
    // that fits a key wins.
    CommandDefault {
        key: "max_batch_records",
        value: "2000",
        uses: &[Use::Ship, Use::Service],
        vendors: &["kafka"],
    },
    // A sidecar reads files and connections in bulk, so fuller batches cost fewer requests
    // (Filebeat's default bulk is 1,600 events): 200 MiB of followed 100-byte lines ship
    // about 15 % faster than at the library's 200 (after the Java appenders'
    // `maxBatchRecords`). The vendor's own limit still caps it.
    CommandDefault {
        key: "max_batch_records",
        value: "1000",
        uses: &[Use::Service],
        vendors: &[],
    },
];

/// Sets each of the command's defaults for `run` on a key nobody set; returns the keys
/// set (for `config check`, which names them as the command's defaults).
pub fn apply(
    config: &mut Config,
    origins: &BTreeMap<&'static str, Origin>,
    run: Use,
) -> Result<Vec<&'static str>, Failure> {
    let mut applied = Vec::new();
    let vendor = config.vendor.name();
    for d in DEFAULTS
        .iter()
        .filter(|d| d.uses.contains(&run) && (d.vendors.is_empty() || d.vendors.contains(&vendor)))
    {
        if !origins.contains_key(d.key) && !applied.contains(&d.key) {
            config.set(d.key, d.value).map_err(invalid)?;
            applied.push(d.key);
        }
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_default_is_a_valid_value_of_a_key_of_the_table() {
        for d in DEFAULTS {
            assert!(logship::keys().any(|k| k.name() == d.key), "{}", d.key);
            Config::default()
                .set(d.key, d.value)
                .unwrap_or_else(|e| panic!("{}: {e}", d.key));
        }
    }

    #[test]
    fn kafka_batches_2000_events_when_shipping_and_other_vendors_keep_theirs() {
        let batch = |vendor: logship::Vendor, run: Use| {
            let mut config = Config::default();
            config.vendor = vendor;
            let applied = apply(&mut config, &BTreeMap::new(), run).expect("valid defaults");
            let once = applied
                .iter()
                .filter(|k| **k == "max_batch_records")
                .count();
            assert!(once <= 1, "{applied:?}");
            config.max_batch_records
        };
        assert_eq!(batch(logship::Vendor::Kafka, Use::Ship), 2000);
        assert_eq!(batch(logship::Vendor::Kafka, Use::Service), 2000);
        assert_eq!(batch(logship::Vendor::Kafka, Use::Pipeline), 200);
        assert_eq!(batch(logship::Vendor::Ndjson, Use::Service), 1000);
        assert_eq!(batch(logship::Vendor::Datadog, Use::Ship), 200);
    }

    #[test]
    fn a_value_set_anywhere_wins_over_the_commands_default() {
        let mut config = Config::default();
        let mut origins = BTreeMap::new();
        origins.insert(
            "max_batch_records",
            Origin::Env("LOGSHIP_MAX_BATCH_RECORDS".into()),
        );
        let applied = apply(&mut config, &origins, Use::Service).expect("valid defaults");
        assert_eq!(
            config.max_batch_records, 200,
            "the library's, as if set by the variable"
        );
        assert_eq!(config.shutdown_timeout, std::time::Duration::from_secs(30));
        assert!(!applied.contains(&"max_batch_records"));
        assert!(applied.contains(&"shutdown_timeout_ms"));
        let mut config = Config::default();
        apply(&mut config, &BTreeMap::new(), Use::Pipeline).expect("valid defaults");
        assert_eq!(
            config.max_batch_records, 200,
            "only a service batches 1,000"
        );
        assert_eq!(config.overflow, logship::Overflow::DropNewest);
    }
}
