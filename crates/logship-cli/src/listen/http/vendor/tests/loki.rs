//! Grafana Loki's push API: snappy protobuf and JSON bodies, and refusals as 400 text.

use super::*;

fn loki_proto(labels: &str, lines: &[&str]) -> Vec<u8> {
    let push = super::super::loki::PushRequest {
        streams: vec![super::super::loki::StreamAdapter {
            labels: labels.into(),
            entries: lines
                .iter()
                .enumerate()
                .map(|(i, l)| super::super::loki::EntryAdapter {
                    timestamp: Some(super::super::loki::Timestamp {
                        seconds: 1_796_133_600,
                        nanos: i as i32,
                    }),
                    line: (*l).into(),
                    structured_metadata: vec![super::super::loki::LabelPair {
                        name: "trace_id".into(),
                        value: "abc".into(),
                    }],
                })
                .collect(),
            hash: 0,
        }],
    };
    snap::raw::Encoder::new()
        .compress_vec(&push.encode_to_vec())
        .expect("snappy")
}

#[test]
fn loki_protobuf_snappy_push() {
    let body = loki_proto(
        r#"{app="shop", level="warn", note="a \"quoted\" \\ value"}"#,
        &[
            "text line",
            r#"{"message":"json line","level":"error","user":"u1"}"#,
        ],
    );
    let (r, ok) = events(post(
        "/loki/api/v1/push",
        &[("Content-Type", "application/x-protobuf")],
        &body,
    ));
    assert_eq!((ok.status, ok.body.len()), (204, 0));
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].message_str(), r[0].level()),
        ("text line", Level::Warn)
    );
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_000_000_000);
    assert_eq!(field(&r[0], "app").as_deref(), Some("shop"));
    assert_eq!(
        field(&r[0], "note").as_deref(),
        Some(r#"a "quoted" \ value"#)
    );
    assert_eq!(field(&r[0], "trace_id").as_deref(), Some("abc"));
    assert_eq!(
        (r[1].message_str(), r[1].level()),
        ("json line", Level::Error)
    );
    assert_eq!(
        r[1].timestamp_nanos(),
        1_796_133_600_000_000_001,
        "the entry's time wins"
    );
    assert_eq!(field(&r[1], "user").as_deref(), Some("u1"));
    // No Content-Type: Loki reads protobuf.
    assert_eq!(events(post("/loki/api/v1/push", &[], &body)).0.len(), 2);
}

#[test]
fn loki_json_push() {
    let body = br#"{"streams":[{"stream":{"job":"api","level":"info"},"values":[["1796133600000000005","hello"],["1796133600000000006","with metadata",{"trace_id":"t1"}]]}]}"#;
    let (r, ok) = events(post(
        "/loki/api/v1/push",
        &[("Content-Type", "application/json")],
        body,
    ));
    assert_eq!(ok.status, 204);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_000_000_005);
    assert_eq!(field(&r[0], "job").as_deref(), Some("api"));
    assert_eq!(field(&r[1], "trace_id").as_deref(), Some("t1"));
    assert_eq!(
        answer(post(
            "/loki/api/v1/push",
            &[("Content-Type", "application/json")],
            br#"{"streams":[]}"#
        ))
        .status,
        204
    );
}

#[test]
fn loki_refusals_are_400_text() {
    let json_ct = [("Content-Type", "application/json")];
    type Case<'a> = (&'a [(&'a str, &'a str)], Vec<u8>, &'a str);
    let bad: [Case<'_>; 8] = [
        (&json_ct, b"{\"streams\":".to_vec(), "invalid JSON"),
        (
            &json_ct,
            br#"{"streams":[{"stream":{},"values":[["1","x"]]}]}"#.to_vec(),
            "at least one label",
        ),
        (
            &json_ct,
            br#"{"streams":[{"stream":{"a-b":"1"},"values":[["1","x"]]}]}"#.to_vec(),
            "invalid label name",
        ),
        (
            &json_ct,
            br#"{"streams":[{"stream":{"a":"1"},"values":[[1.5,"x"]]}]}"#.to_vec(),
            "nanoseconds",
        ),
        (&[], b"this is not snappy".to_vec(), "snappy"),
        (
            &[],
            snap::raw::Encoder::new()
                .compress_vec(b"\xff\xff\xff garbage")
                .expect("snappy"),
            "parse",
        ),
        (&[], loki_proto("app=\"x\"", &["l"]), "error parsing labels"),
        (
            &[],
            loki_proto(&format!("{{a=\"{}}}", "v".repeat(1_000_000)), &["l"]),
            "unterminated",
        ),
    ];
    for (h, body, want) in bad {
        let a = answer(post("/loki/api/v1/push", h, &body));
        let text = String::from_utf8_lossy(&a.body).into_owned();
        assert_eq!(a.status, 400, "{text}");
        assert!(text.contains(want), "{want}: {text}");
        assert!(text.len() < 400, "the label text is not echoed whole");
    }
    let b = busy(Vendor::Loki, 1);
    assert_eq!(b.status, 429);
    assert_eq!(too_large(Vendor::Loki, 1).status, 413);
    let h = headers(&[("Authorization", "Bearer tok")]);
    assert_eq!(
        credential(Vendor::Loki, &req("POST", "/loki/api/v1/push", &h, b"")).as_deref(),
        Some("tok")
    );
}
