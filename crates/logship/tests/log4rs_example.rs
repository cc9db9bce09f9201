//! The log4rs example end to end: the example program, unchanged, ships to Datadog (the
//! local emulation, which checks the wire format and the key) because its `log4rs.yaml`
//! says so. The only edit the test makes is the one a user makes: the YAML's endpoint.

#![cfg(feature = "log4rs")]

#[path = "../examples/log4rs_app.rs"]
mod example;

use std::time::Duration;

use logship_intake::{Intake, IntakeConfig};

#[test]
fn the_example_program_ships_to_datadog_by_its_yaml_alone() {
    let key = std::env::var("DD_API_KEY").unwrap_or_else(|_| "local-test-key".to_owned());
    let intake = Intake::start(IntakeConfig {
        api_key: Some(key),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/log4rs.yaml"))
            .expect("the example's log4rs.yaml");
    assert!(shipped.contains("kind: batch_http") && shipped.contains("vendor: datadog"));
    let yaml = shipped.replace(
        "endpoint: http://127.0.0.1:9000",
        &format!("endpoint: {}", intake.url("")),
    );
    assert_ne!(
        yaml, shipped,
        "the example's endpoint line moved: update this test"
    );
    let dir = std::env::temp_dir().join(format!("logship-log4rs-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("log4rs.yaml");
    std::fs::write(&path, yaml).unwrap();

    example::run(&path, 10).expect("the example runs");

    // `run` flushed: everything is at the intake already.
    assert!(intake.wait_for_events(11, Duration::from_secs(30)));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let events = intake.events();
    assert_eq!(events.len(), 11);
    let requests = intake.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.vendor, "datadog");
        assert_eq!(r.status, 202, "{r:?}");
        assert_eq!(r.header("content-encoding"), Some("gzip"));
    }
    let order = events
        .iter()
        .map(|e| &e.value)
        .find(|v| v["message"] == "order 3 placed")
        .expect("order 3 arrived");
    assert_eq!(order["service"], "shop");
    assert_eq!(order["ddsource"], "rust");
    assert_eq!(order["status"], "info");
    assert_eq!(order["order_id"], 3);
    assert_eq!(order["amount_cents"], 1299);
    assert_eq!(order["logger.name"], "shop::orders");
    let tags = order["ddtags"].as_str().unwrap_or_default();
    assert!(
        tags.contains("env:dev") && tags.contains("team:checkout"),
        "{tags}"
    );
    let warn = events
        .iter()
        .map(|e| &e.value)
        .find(|v| v["message"] == "payment provider slow")
        .expect("the warning arrived");
    assert_eq!(warn["status"], "warning");
    let _ = std::fs::remove_dir_all(&dir);
}
