//! `logship demo`: it delivers everything it logs to its own in-process sink, over HTTP
//! and HTTPS, for every vendor it emulates, and through a staged outage without losing
//! an event.

mod common;

use common::{row, run, stderr, stdout, temp_path};
use serde_json::Value;

#[test]
fn demo_delivers_everything_it_logs() {
    let json_path = temp_path("demo.json");
    let json_arg = json_path.to_string_lossy().into_owned();
    let out = run(
        &[
            "demo",
            "--duration",
            "2",
            "--rate",
            "2000",
            "--threads",
            "2",
            "--json",
            &json_arg,
        ],
        b"",
    );
    let table = stdout(&out);
    assert!(
        out.status.success(),
        "stdout: {table}\nstderr: {}",
        stderr(&out)
    );
    assert!(table.starts_with("logship demo: 2 threads, 2 s, local intake on 127.0.0.1:"));
    let logged = row(&table, "events logged");
    assert_eq!(logged, 4000, "{table}");
    assert_eq!(row(&table, "events delivered"), logged, "{table}");
    assert_eq!(row(&table, "events dropped"), 0, "{table}");
    assert!(table.contains("log call -> intake    p50 "), "{table}");
    assert!(table.contains("log call cost         p50 "), "{table}");

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).expect("json file"))
            .expect("demo JSON");
    assert_eq!(report["events_logged"], 4000);
    assert_eq!(report["events_delivered"], 4000);
    assert_eq!(report["latency_samples"], 4000);
    assert_eq!(report["stats"]["events_delivered"], 4000);
}

#[test]
fn demo_ships_over_https_to_its_own_sink_with_a_throwaway_ca() {
    let out = run(
        &[
            "demo",
            "--tls",
            "--duration",
            "1",
            "--rate",
            "500",
            "--threads",
            "1",
        ],
        b"",
    );
    let table = stdout(&out);
    assert!(out.status.success(), "{table}\n{}", stderr(&out));
    let first = table.lines().next().unwrap_or("");
    assert!(first.ends_with(" (HTTPS)"), "{table}");
    assert_eq!(row(&table, "events logged"), 500, "{table}");
    assert_eq!(row(&table, "events delivered"), 500, "{table}");
}

#[test]
fn demo_runs_against_each_emulated_vendor() {
    for vendor in [
        "datadog",
        "splunk",
        "newrelic",
        "dynatrace",
        "loki",
        "otlp",
        "elasticsearch",
    ] {
        let out = run(
            &[
                "demo",
                "--vendor",
                vendor,
                "--duration",
                "1",
                "--rate",
                "1000",
                "--threads",
                "1",
            ],
            b"",
        );
        let table = stdout(&out);
        assert!(out.status.success(), "{vendor}: {table}\n{}", stderr(&out));
        assert_eq!(row(&table, "events logged"), 1000, "{table}");
        assert_eq!(row(&table, "events delivered"), 1000, "{table}");
    }
}

#[test]
fn demo_survives_a_staged_outage_without_losing_events() {
    // logship's own format, and a vendor's (its sink reads the request ids elsewhere).
    for vendor in ["ndjson", "splunk"] {
        let out = run(
            &[
                "demo",
                "--vendor",
                vendor,
                "--duration",
                "3",
                "--rate",
                "1000",
                "--threads",
                "2",
                "--outage-after",
                "0.5",
                "--outage-for",
                "1.5",
            ],
            b"",
        );
        let table = stdout(&out);
        assert!(out.status.success(), "{vendor}: {table}\n{}", stderr(&out));
        assert!(
            table.contains("outage: intake down from 0.5 s for 1.5 s"),
            "{table}"
        );
        assert_eq!(row(&table, "events logged"), 3000, "{table}");
        assert_eq!(row(&table, "unique delivered"), 3000, "{table}");
        assert_eq!(row(&table, "lost"), 0, "{table}");
    }
}
