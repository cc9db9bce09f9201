//! Elasticsearch / OpenSearch options: the target data stream or index, as a row of the
//! key table.
//!
//! Why it exists: the options only the `_bulk` intake reads travel together in one typed
//! group, beside the encoder (the target's rules are in `target.rs`). Must never build a
//! request.

use crate::config::key::{Flag::*, Kind};
use crate::config::key_parts::*;
use crate::config::options::options;

options! {
    /// Options of the Elasticsearch / OpenSearch `_bulk` intake (`vendor = elasticsearch`).
    /// Key `index`.
    ///
    /// ```
    /// let es = logship::ElasticsearchOptions::default().index("logs-%Y.%m.%d");
    /// let builder = logship::Logship::builder().elasticsearch(es);
    /// assert_eq!(builder.config().elasticsearch.index.as_deref(), Some("logs-%Y.%m.%d"));
    /// ```
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct ElasticsearchOptions {
        setters: elasticsearch_setters,
        setters_on: "ElasticsearchOptions",
        debug: generated,
        rows: [
            /// The data stream or index, optionally with a UTC date pattern taken from each
            /// event's timestamp (`%Y`, `%m`, `%d`, `%H`, e.g. `logs-%Y.%m.%d`). Unset: the
            /// data stream `logs-logship-default`.
            index: Option<String> = None => {
                name: "index",
                kind: Kind::Str,
                flag: Value("--index"),
                default: "`logs-logship-default`",
                doc: "Elasticsearch/OpenSearch data stream or index; `%Y %m %d %H` expand from each event's UTC timestamp",
                set: |c, v| c.index = v.text(),
                get: |c| text(&c.index),
                setter: fn index(index: impl Into<String>) |f| *f = Some(index.into()),
            },
        ]
    }
}

impl ElasticsearchOptions {
    elasticsearch_setters!();
}
