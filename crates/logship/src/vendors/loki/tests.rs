//! The Loki encoder: streams by level, metadata names, line limits, and bodies the
//! batcher cuts that equal the split encoding.

use std::sync::Arc;
use std::time::Instant;

use super::labels::is_label_name;
use super::*;
use crate::batch::Batcher;
use crate::config::Vendor;
use crate::support::secret::Secret;
use crate::vendors::codec::Codec;
use crate::vendors::testutil::TestFacts;
use crate::LokiOptions;

/// How this vendor's bodies look, for the tests that run over every vendor.
pub(crate) const FACTS: TestFacts = TestFacts {
    id_marker: "\"logship_id\":",
    ..TestFacts::plain("\"target\":")
};

fn config() -> Config {
    Config {
        vendor: Vendor::Loki,
        endpoint: Some("http://loki:3100".into()),
        service: Some("checkout".into()),
        hostname: Some("web-1".into()),
        tags: vec!["team:pay".into()],
        loki: LokiOptions {
            labels: vec!["env=prod".into()],
            ..LokiOptions::default()
        },
        ..Config::default()
    }
}

fn rec(level: Level, ts: u64, msg: &str) -> Record {
    let mut r = Record::new(level, "app::pay");
    r.set_timestamp_nanos(ts)
        .message(msg)
        .field("order_id", 42u64)
        .field("ok", true)
        .field("hostname", "shadowed")
        .span("request")
        .field("id", 7i64);
    r
}

fn json(body: &[u8]) -> serde_json::Value {
    serde_json::from_slice(body).expect("valid JSON")
}

#[test]
fn entries_are_grouped_by_level_and_ordered_by_time() {
    let codec = Codec::new(&config()).unwrap();
    assert_eq!(codec.url(), "http://loki:3100/loki/api/v1/push");
    let records = [
        rec(Level::Info, 30, "i30"),
        rec(Level::Error, 20, "e20"),
        rec(Level::Info, 10, "i10"),
        rec(Level::Info, 30, "i30b"),
        rec(Level::Error, 5, "e5"),
    ];
    let v = json(&codec.encode(&records));
    let streams = v["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 2);
    assert_eq!(
        streams[0]["stream"],
        serde_json::json!({"service": "checkout", "level": "info", "env": "prod"})
    );
    assert_eq!(streams[1]["stream"]["level"], "error");
    let lines = |s: &serde_json::Value| -> Vec<(String, String)> {
        s["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[0].as_str().unwrap().into(), e[1].as_str().unwrap().into()))
            .collect()
    };
    let pair = |t: &str, l: &str| (t.to_owned(), l.to_owned());
    assert_eq!(
        lines(&streams[0]),
        [pair("10", "i10"), pair("30", "i30"), pair("30", "i30b")]
    );
    assert_eq!(lines(&streams[1]), [pair("5", "e5"), pair("20", "e20")]);
    assert_eq!(
        streams[0]["values"][0][2],
        serde_json::json!({
            "target": "app::pay", "hostname": "web-1", "team": "pay",
            "order_id": "42", "ok": "true", "field_hostname": "shadowed", "id": "7",
            "logship_id": records[2].id().unwrap().to_string()
        })
    );
}

#[test]
fn batcher_bodies_fit_their_budget_and_equal_the_split_encoding() {
    let mut c = config();
    c.max_batch_bytes = 4096;
    let codec = Arc::new(Codec::new(&c).unwrap());
    let mut batcher = Batcher::new(Arc::clone(&codec), 1 << 20);
    let mut out = Vec::new();
    let levels = [Level::Info, Level::Warn, Level::Error, Level::Debug];
    for i in 0..500u64 {
        let r = rec(
            levels[(i % 4) as usize],
            1000 - i,
            &"x".repeat((i % 50) as usize),
        );
        batcher.push(r, Instant::now(), &mut |b| out.push(b));
    }
    batcher.cut(&mut |b| out.push(b));
    assert!(out.len() > 10);
    let mut total = 0;
    for batch in &out {
        assert!(batch.body.len() <= 4096, "{} > 4096", batch.body.len());
        assert_eq!(batch.body, codec.encode(&batch.records));
        let v = json(&batch.body);
        total += v["streams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["values"].as_array().unwrap().len())
            .sum::<usize>();
    }
    assert_eq!(total, 500);
}

#[test]
fn the_close_bound_is_exact_when_every_level_is_present() {
    let codec = Codec::new(&config()).unwrap();
    let records: Vec<Record> = LEVELS.iter().map(|&l| rec(l, 1, "m")).collect();
    let mut staged = Vec::new();
    codec.open(&mut staged);
    for (i, r) in records.iter().enumerate() {
        codec.push(&mut staged, r, i.checked_sub(1).map(|p| &records[p]));
    }
    let bound = staged.len() + codec.close_len();
    assert_eq!(codec.encode(&records).len(), bound);
    assert!(codec.encode(&records[..2]).len() < bound);
}

#[test]
fn long_lines_are_cut_to_max_line_bytes_and_marked() {
    let mut c = config();
    c.loki.max_line_bytes = 2048;
    let codec = Codec::new(&c).unwrap();
    assert!(codec
        .fit_line(&rec(Level::Info, 1, &"a".repeat(2048)))
        .is_none());
    let long = rec(Level::Info, 1, &"é".repeat(3000));
    let cut = codec.fit_line(&long).unwrap();
    assert!(cut.message_str().len() <= 2048);
    assert!(cut.message_str().ends_with(LINE_MARKER));
    let v = json(&codec.encode(&[cut]));
    let meta = &v["streams"][0]["values"][0][2];
    assert_eq!(meta["logship_truncated"], "true");
    assert!(
        meta["logship_original_bytes"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 6000
    );
    // 2048 bytes minus the marker's 14 keep 1017 whole characters (2034 bytes) of 6000.
    assert_eq!(meta["logship_truncated_bytes"], "3966");
    assert_eq!(meta["order_id"], "42");
    assert_eq!(meta["id"], "7");
}

#[test]
fn bad_labels_fail_with_the_field_and_the_fix() {
    let err = |labels: &[&str], service: Option<&str>| {
        let c = Config {
            loki: LokiOptions {
                labels: labels.iter().map(|s| (*s).to_owned()).collect(),
                ..LokiOptions::default()
            },
            service: service.map(str::to_owned),
            ..config()
        };
        c.validate().unwrap_err().to_string()
    };
    assert_eq!(
        err(&["2env=prod"], None),
        "loki_labels = 2env=prod: label name \"2env\" must match [a-zA-Z_][a-zA-Z0-9_]* (use letters, digits and underscores, not starting with a digit, e.g. env=prod)"
    );
    assert_eq!(
        err(&["__name__=x"], None),
        "loki_labels = __name__=x: label name \"__name__\" starts with \"__\", which Loki reserves (rename it, e.g. name__)"
    );
    assert_eq!(
        err(&["env"], None),
        "loki_labels = env: each label must be name=value (write loki_labels = [\"env=prod\", \"team=core\"])"
    );
    assert_eq!(
        err(&["level=x"], None),
        "loki_labels = level=x: duplicate label name \"level\": logship sets it (level from each event, service from `service`, env from `env`) (give each label a distinct name)"
    );
    assert_eq!(
        err(&["env="], None),
        "loki_labels = env=: label value is empty (give env a value, or leave the label out)"
    );
    let many: Vec<String> = (0..14).map(|i| format!("l{i}=v")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    assert!(err(&many, Some("svc")).contains(
        "14 labels plus logship's 2 (level, service) exceed Loki's 15 labels per stream (keep at most 13 static labels"
    ));
    let c = Config {
        loki: LokiOptions {
            labels: many[..13].iter().map(|s| (*s).to_owned()).collect(),
            ..LokiOptions::default()
        },
        ..config()
    };
    c.validate().unwrap();
    let c = Config {
        loki: LokiOptions {
            tenant_id: Some("team a".into()),
            ..config().loki
        },
        ..config()
    };
    assert!(c
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("tenant_id = team a: "));
    let c = Config {
        username: Some("u".into()),
        ..config()
    };
    assert_eq!(
        c.validate().unwrap_err().to_string(),
        "password = (none): basic auth needs a password with the username (set password or LOGSHIP_PASSWORD (Grafana Cloud: an access token))"
    );
}

#[test]
fn tenant_and_basic_auth_headers_and_secrets_stay_hidden() {
    let c = Config {
        loki: LokiOptions {
            tenant_id: Some("team-a".into()),
            ..config().loki
        },
        username: Some("123456".into()),
        password: Some(Secret::new("glc_pw")),
        ..config()
    };
    c.validate().unwrap();
    let codec = Codec::new(&c).unwrap();
    let header = |name: &str| {
        codec
            .headers()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.expose().to_owned())
    };
    assert_eq!(header("X-Scope-OrgID").as_deref(), Some("team-a"));
    // base64("123456:glc_pw")
    assert_eq!(
        header("Authorization").as_deref(),
        Some("Basic MTIzNDU2OmdsY19wdw==")
    );
    for shown in [format!("{codec:?}"), format!("{c:?}")] {
        assert!(!shown.contains("glc_pw"), "{shown}");
        assert!(!shown.contains("MTIzNDU2OmdsY19wdw"), "{shown}");
    }
    let plain = Codec::new(&config()).unwrap();
    assert!(plain.headers().is_empty());
}

#[test]
fn responses_follow_vendors_md() {
    let codec = Codec::new(&config()).unwrap();
    for (status, want) in [
        (204, Outcome::Delivered),
        (200, Outcome::Delivered),
        (260, Outcome::Permanent),
        (400, Outcome::Permanent),
        (401, Outcome::Permanent),
        (413, Outcome::TooLarge),
        (429, Outcome::Retry),
        (500, Outcome::Retry),
        (503, Outcome::Retry),
    ] {
        assert_eq!(codec.classify(status, b""), want, "{status}");
    }
}

#[test]
fn label_names_follow_loki_rules() {
    for ok in ["env", "_x", "Team_2", "a"] {
        assert!(is_label_name(ok), "{ok}");
    }
    for bad in ["", "2env", "team-a", "a.b", "é"] {
        assert!(!is_label_name(bad), "{bad}");
    }
}

#[test]
fn metadata_names_are_made_query_safe() {
    let name = |key| Style::Label.name(key);
    assert_eq!(name("trace_id"), "trace_id");
    assert_eq!(name("http.status"), "http_status");
    assert_eq!(name("1st"), "_1st");
    assert_eq!(name("\"é\""), "___");
    assert_eq!(name(""), "_");
}

#[test]
fn close_copies_the_pushed_entries_into_the_same_body_as_encoding_each_anew() {
    let codec = Codec::new(&config()).unwrap();
    // Lines that hold what an entry boundary looks like, escaped or at a string's end.
    let records = [
        rec(Level::Info, 30, "ends in ,["),
        rec(Level::Error, 20, "quoted \",[\"1 inside"),
        rec(Level::Info, 10, ",[\"123\",{}]"),
        rec(Level::Warn, 10, "[\"9"),
        rec(Level::Info, 30, "last"),
    ];
    let copied = codec.encode(&records);
    // A body that is not the pushed entries: `close` encodes every record anew.
    let mut anew = Vec::new();
    codec.open(&mut anew);
    codec.close(&mut anew, &records);
    assert_eq!(
        String::from_utf8_lossy(&copied),
        String::from_utf8_lossy(&anew)
    );
    let v = json(&copied);
    let lines: Vec<&str> = v["streams"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["values"].as_array().unwrap())
        .map(|e| e[1].as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            ",[\"123\",{}]",
            "ends in ,[",
            "last",
            "[\"9",
            "quoted \",[\"1 inside"
        ]
    );
}
