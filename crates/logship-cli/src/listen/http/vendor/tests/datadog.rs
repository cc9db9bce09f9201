//! Datadog's `POST /api/v2/logs` (and v1): its reserved attributes, status remapper,
//! refusals and credentials, answered in Datadog's own error shape.

use super::*;

#[test]
fn datadog_array_maps_reserved_attributes_tags_and_nested_objects() {
    let body = format!(
        r#"[{{"ddsource":"java","ddtags":"env:prod,version:1.2,canary","hostname":"web-1","service":"checkout","message":"payment accepted","status":"warn","timestamp":{T0_MS},"logger.name":"shop.Pay","order_id":42,"http":{{"method":"GET"}}}},
            {{"message":"second","status":"notice","date":"2026-12-01T14:00:00Z"}}]"#
    );
    let (records, ok) = events(post(
        "/api/v2/logs",
        &[("Content-Type", "application/json"), ("DD-API-KEY", "k")],
        body.as_bytes(),
    ));
    assert_eq!(ok.status, 202);
    assert_eq!(json(&ok), serde_json::json!({}));
    assert_eq!(records.len(), 2);
    let r = &records[0];
    assert_eq!(r.message_str(), "payment accepted");
    assert_eq!(r.level(), Level::Warn);
    assert_eq!(r.target(), "shop.Pay");
    assert_eq!(r.timestamp_nanos(), T0_MS * 1_000_000);
    assert_eq!(field(r, "host").as_deref(), Some("web-1"));
    assert_eq!(field(r, "service").as_deref(), Some("checkout"));
    assert_eq!(field(r, "source").as_deref(), Some("java"));
    assert_eq!(field(r, "env").as_deref(), Some("prod"));
    assert_eq!(field(r, "version").as_deref(), Some("1.2"));
    assert_eq!(field(r, "http.method").as_deref(), Some("GET"));
    let f = fields(r);
    assert!(f.contains(&("canary".into(), format!("{:?}", logship::Value::Bool(true)))));
    assert!(f.contains(&("order_id".into(), format!("{:?}", logship::Value::I64(42)))));
    assert!(!f
        .iter()
        .any(|(k, _)| k == "status" || k == "ddtags" || k == "hostname"));
    // `notice` is info, and the original is kept since the level alone loses it.
    assert_eq!(records[1].level(), Level::Info);
    assert_eq!(field(&records[1], "status").as_deref(), Some("notice"));
    assert_eq!(records[1].timestamp_nanos(), (T0_MS - 123) * 1_000_000);
}

#[test]
fn datadog_status_remapper_rules() {
    let level = |status: &str| {
        let body = format!(r#"{{"message":"m","status":{status}}}"#);
        let (r, _) = events(post("/api/v2/logs", &[], body.as_bytes()));
        r[0].level()
    };
    for (status, want) in [
        (r#""emerg""#, Level::Error),
        (r#""fatal""#, Level::Error),
        (r#""alert""#, Level::Error),
        (r#""critical""#, Level::Error),
        (r#""ERROR""#, Level::Error),
        (r#""err""#, Level::Error),
        (r#""warning""#, Level::Warn),
        (r#""notice""#, Level::Info),
        (r#""info""#, Level::Info),
        (r#""debug""#, Level::Debug),
        (r#""trace""#, Level::Debug),
        (r#""verbose""#, Level::Debug),
        (r#""OK""#, Level::Info),
        (r#""success""#, Level::Info),
        (r#""whatever""#, Level::Warn),
        (r#""zzz""#, Level::Info),
        ("3", Level::Error),
        ("4", Level::Warn),
        ("6", Level::Info),
        ("7", Level::Debug),
        (r#""2""#, Level::Error),
    ] {
        assert_eq!(level(status), want, "{status}");
    }
}

#[test]
fn datadog_single_object_text_plain_query_defaults_and_v1() {
    let (r, ok) = events(post(
        "/api/v2/logs?ddtags=team:pay&ddsource=nginx",
        &[],
        br#"{"message":"one"}"#,
    ));
    assert_eq!((ok.status, r.len()), (202, 1));
    assert_eq!(field(&r[0], "team").as_deref(), Some("pay"));
    assert_eq!(field(&r[0], "source").as_deref(), Some("nginx"));
    let (r, _) = events(post(
        "/api/v2/logs",
        &[("Content-Type", "text/plain")],
        b"line one\r\n\nline two\n",
    ));
    assert_eq!(
        r.iter().map(Record::message_str).collect::<Vec<_>>(),
        ["line one", "line two"]
    );
    let (r, ok) = events(post(
        "/v1/input/key123?service=web&hostname=h1",
        &[],
        br#"[{"message":"v1","service":"own"}]"#,
    ));
    assert_eq!(ok.status, 200);
    assert_eq!(
        field(&r[0], "service").as_deref(),
        Some("own"),
        "the entry's own wins"
    );
    assert_eq!(field(&r[0], "host").as_deref(), Some("h1"));
    let h = headers(&[]);
    assert_eq!(
        credential(Vendor::Datadog, &req("POST", "/v1/input/key123", &h, b"")).as_deref(),
        Some("key123")
    );
}

#[test]
fn datadog_refuses_malformed_bodies_with_its_error_shape() {
    for body in [
        &b"[{\"message\":"[..],
        b"not json",
        b"42",
        b"[1]",
        b"\xff\xfe",
    ] {
        let a = answer(post(
            "/api/v2/logs",
            &[("Content-Type", "application/json")],
            body,
        ));
        assert_eq!(a.status, 400, "{body:?}");
        let v = json(&a);
        assert_eq!(v["errors"][0]["status"], "400");
        assert_eq!(v["errors"][0]["title"], "Bad Request");
        assert!(v["errors"][0]["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with("Malformed payload"));
    }
    // Keep-alives and empty bodies carry nothing and are accepted.
    for body in [&b""[..], b"  ", b"[]", b"{}"] {
        assert_eq!(answer(post("/api/v2/logs", &[], body)).status, 202);
    }
    // Deep nesting: serde_json's limit, answered 400, no recursion of ours.
    let deep = format!(
        "[{{\"message\":\"m\",\"a\":{}1{}}}]",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(
        answer(post("/api/v2/logs", &[], deep.as_bytes())).status,
        400
    );
    let h = headers(&[]);
    let a = answer(decode(
        Vendor::Datadog,
        &req("GET", "/api/v2/logs", &h, b""),
    ));
    assert_eq!(a.status, 405);
}

#[test]
fn datadog_credentials_and_refusals() {
    let h = headers(&[("DD-API-KEY", "secret")]);
    assert_eq!(
        credential(Vendor::Datadog, &req("POST", "/api/v2/logs", &h, b"")).as_deref(),
        Some("secret")
    );
    let none = headers(&[]);
    assert_eq!(
        credential(
            Vendor::Datadog,
            &req("POST", "/api/v2/logs?dd-api-key=q", &none, b"")
        )
        .as_deref(),
        Some("q")
    );
    assert_eq!(
        credential(Vendor::Datadog, &req("POST", "/api/v2/logs", &none, b"")).as_deref(),
        None
    );
    assert_eq!(unauthorized(Vendor::Datadog).status, 403);
    assert_eq!(missing_credential(Vendor::Datadog).status, 401);
    let b = busy(Vendor::Datadog, 1);
    assert_eq!(b.status, 503);
    assert!(b.headers.contains(&("Retry-After".into(), "1".into())));
    assert_eq!(json(&b)["errors"][0]["status"], "503");
    let t = too_large(Vendor::Datadog, 5_000_000);
    assert_eq!(
        (t.status, json(&t)["errors"][0]["title"].as_str()),
        (413, Some("Payload Too Large"))
    );
}
