//! `logship ship --follow`, what a line becomes: long lines cut and invalid UTF-8
//! replaced (both counted), Java stack traces from a real JVM as one event, a held multi-
//! line event kept out of the checkpoint, CRI and Docker json-file lines unwrapped. Real
//! files on disk, the real `logship` binary, real HTTP to the in-process strict intake
//! (harness: `common/follow.rs`).

mod common;

use std::path::Path;

use common::follow::*;

#[test]
fn long_lines_are_cut_and_invalid_utf8_replaced_and_both_are_counted() {
    let intake = intake();
    let dir = fresh_dir("follow-bad-lines");
    let log = dir.join("app.log");
    let stats = dir.join("stats.json");
    let mut data = Vec::new();
    data.extend_from_slice(format!("{}\n", line_text(0)).as_bytes());
    data.extend_from_slice(b"id=00000001 ");
    data.extend(std::iter::repeat_n(b'x', 3 << 20)); // 3 MiB, over the 1 MiB default
    data.extend_from_slice(b"\nid=00000002 bad \xff\xfe bytes\n");
    // 9 MiB, over the 8 MiB read cap: cut while reading.
    data.extend_from_slice(b"id=00000003 ");
    data.extend(std::iter::repeat_n(b'y', 9 << 20));
    data.push(b'\n');
    std::fs::write(&log, &data).unwrap();
    let follower = follow_without_checkpoint(&intake, &log, &["--stats-json", s(&stats)]);
    wait_events(&intake, 4);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let got = received(&intake);
    assert_eq!(
        got.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    let events = intake.events();
    // Under the read cap: read whole, truncated by the pipeline, every byte cut counted.
    let cut = &events[1].value;
    assert_eq!(
        cut["logship.truncated"],
        true,
        "{}",
        &cut.to_string()[..200]
    );
    let message = cut["message"].as_str().unwrap();
    assert!(message.len() <= 1 << 20);
    let kept = message.trim_end_matches("…[truncated]").len();
    assert_eq!(cut["logship.truncated_bytes"], (3 << 20) + 12 - kept as u64);
    assert!(cut["logship.original_bytes"].as_u64().unwrap() > (3 << 20) + 12);
    // Over it: cut while reading, its real size kept, every byte not shipped counted.
    let over = &events[3].value;
    assert_eq!(over["logship.original_bytes"], (9 << 20) + 12);
    let kept = over["message"]
        .as_str()
        .unwrap()
        .trim_end_matches("…[truncated]")
        .len();
    assert_eq!(
        over["logship.truncated_bytes"],
        (9 << 20) + 12 - kept as u64
    );
    assert!(events[2].value["message"]
        .as_str()
        .unwrap()
        .contains('\u{fffd}'));
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(stats["invalid_utf8"], 1, "{stats}");
    assert_eq!(stats["truncated"], 2, "{stats}");
    // The summary states the cut line's real size, and the read cap apart from it.
    let summary = stderr
        .iter()
        .find(|l| l.contains("shipped"))
        .expect("summary");
    assert!(
        summary.contains(
            "2 events truncated (logship.original_bytes has the real size), 1 of them cut while reading (the largest 9.0 MiB; the read cap is 8.0 MiB)"
        ),
        "{summary}"
    );
}

#[test]
fn java_stack_traces_from_a_real_jvm_arrive_as_one_event_each() {
    // Written by OpenJDK 17 (tests/fixtures/java/Traces.java): nested causes, suppressed
    // exceptions, "... N more", a helpful NullPointerException message.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/java");
    let log_text = std::fs::read_to_string(fixtures.join("java-traces.log")).unwrap();
    let expected: Vec<usize> = std::fs::read_to_string(fixtures.join("java-traces.expected"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let intake = intake();
    let dir = fresh_dir("follow-java");
    let log = dir.join("app.log");
    std::fs::write(&log, &log_text).unwrap();
    let follower = follow_java(&intake, &log, &[]);
    // The file ends quiet: its last event leaves after the timeout, not at shutdown.
    wait_events(&intake, expected.len());
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let messages: Vec<String> = intake
        .events()
        .iter()
        .map(|e| e.value["message"].as_str().unwrap().to_owned())
        .collect();
    let lines: Vec<usize> = messages.iter().map(|m| m.lines().count()).collect();
    assert_eq!(lines, expected, "lines per event");
    assert_eq!(
        messages.join("\n") + "\n",
        log_text,
        "every line, once, in order"
    );
    assert!(
        messages.iter().all(|m| m.starts_with("2026-12-01T12:00:")),
        "each event starts at its log line"
    );
    let traces = expected.iter().filter(|n| **n > 1).count();
    assert!(
        stderr
            .iter()
            .any(|l| l.contains(&format!("{traces} multi-line events"))),
        "{stderr:?}"
    );
}

#[test]
fn multiline_a_held_event_stays_out_of_the_checkpoint_and_sigterm_ships_it() {
    let intake = intake();
    let dir = fresh_dir("follow-java-restart");
    let log = dir.join("app.log");
    let ckpt = dir.join("ckpt.json");
    let a = [
        "--follow",
        s(&log),
        "--checkpoint",
        s(&ckpt),
        "--no-spill",
        "--multiline",
        "java",
        "--multiline-timeout-ms",
        "600000",
    ];
    std::fs::write(
        &log,
        "2026-12-01T12:00:00Z ERROR a\njava.lang.Error: x\n\tat A.b(A.java:1)\n",
    )
    .unwrap();
    let follower = Follower::start(&intake, &a);
    // Read and held (its next line may still come): the checkpoint stays before it.
    wait_until("a checkpoint of the held event", || {
        checkpoint_offset(&ckpt, &log) == Some(0)
    });
    assert_eq!(intake.stats().events, 0);
    // SIGTERM ships what is held and checkpoints past it.
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(intake.stats().events, 1);
    assert_eq!(
        checkpoint_offset(&ckpt, &log),
        Some(std::fs::metadata(&log).unwrap().len())
    );
}

#[test]
fn cri_and_docker_json_file_lines_are_unwrapped_partials_joined_and_pods_named() {
    let intake = intake();
    let root = fresh_dir("follow-containers");
    // containerd / CRI-O under the kubelet's standard path.
    let pod_dir =
        root.join("var/log/pods/shop_checkout-7d4b9_0f1e2d3c-aaaa-bbbb-cccc-1234567890ab/app");
    std::fs::create_dir_all(&pod_dir).unwrap();
    let cri_log = pod_dir.join("0.log");
    let long = "x".repeat(20_000);
    std::fs::write(
        &cri_log,
        format!(
            "2026-12-01T12:00:00.000000001Z stdout F id=00000000 plain\n\
             2026-12-01T12:00:00.000000002Z stderr P id=00000001 {}\n\
             2026-12-01T12:00:00.000000003Z stderr P {}\n\
             2026-12-01T12:00:00.000000004Z stderr F  tail\n\
             this is not a CRI line\n",
            &long[..10_000],
            &long[10_000..]
        ),
    )
    .unwrap();
    let cri = Follower::start(
        &intake,
        &[
            "--follow",
            s(&cri_log),
            "--format",
            "cri",
            "--no-checkpoint",
            "--no-spill",
        ],
    );
    wait_events(&intake, 3);
    let (code, stderr) = cri.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let events = intake.events();
    let v: Vec<&serde_json::Value> = events.iter().map(|e| &e.value).collect();
    assert_eq!(v[0]["message"], "id=00000000 plain");
    assert_eq!(v[0]["log.iostream"], "stdout");
    assert_eq!(v[0]["timestamp"], "2026-12-01T12:00:00.000Z");
    assert_eq!(v[0]["k8s.namespace.name"], "shop");
    assert_eq!(v[0]["k8s.pod.name"], "checkout-7d4b9");
    assert_eq!(v[0]["k8s.container.name"], "app");
    assert_eq!(v[0]["k8s.pod.uid"], "0f1e2d3c-aaaa-bbbb-cccc-1234567890ab");
    // Three pieces, one line: P, P, F.
    assert_eq!(v[1]["message"], format!("id=00000001 {long} tail"));
    assert_eq!(v[1]["log.iostream"], "stderr");
    assert_eq!(v[2]["message"], "this is not a CRI line");
    assert_eq!(v[2]["logship.parse_error"], true);
    assert_eq!(v.len(), 3);

    // Docker's json-file driver: a line over 16 KiB is split into pieces without "\n".
    intake.reset();
    let id = "c0ffee".repeat(10) + "abcd";
    let docker_dir = root.join("docker/containers").join(&id);
    std::fs::create_dir_all(&docker_dir).unwrap();
    let docker_log = docker_dir.join(format!("{id}-json.log"));
    let piece = |log: &str, stream: &str, ns: u32| {
        serde_json::json!({"log": log, "stream": stream, "time": format!("2026-12-01T12:00:01.{ns:09}Z")})
            .to_string()
    };
    std::fs::write(
        &docker_log,
        [
            piece("id=00000010 hello\n", "stdout", 1),
            piece(&format!("id=00000011 {}", &long[..16_384]), "stderr", 2),
            piece(&format!("{}\n", &long[16_384..]), "stderr", 3),
            "{\"log\": truncated".to_owned(),
            String::new(),
        ]
        .join("\n"),
    )
    .unwrap();
    let docker = Follower::start(
        &intake,
        &[
            "--follow",
            s(&docker_log),
            "--format",
            "docker",
            "--no-checkpoint",
            "--no-spill",
        ],
    );
    wait_events(&intake, 3);
    let (code, stderr) = docker.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let events = intake.events();
    let v: Vec<&serde_json::Value> = events.iter().map(|e| &e.value).collect();
    assert_eq!(v[0]["message"], "id=00000010 hello");
    assert_eq!(v[0]["timestamp"], "2026-12-01T12:00:01.000Z");
    assert_eq!(v[1]["message"], format!("id=00000011 {long}"));
    assert_eq!(v[1]["log.iostream"], "stderr");
    assert_eq!(v[2]["logship.parse_error"], true);
    assert!(v[0].get("k8s.pod.name").is_none(), "not a Kubernetes path");
}

/// `logship ship --follow LOG --multiline java` (no checkpoint, no spill, a held event
/// shipped after 200 ms of quiet) with `extra` options.
fn follow_java(intake: &logship_intake::Intake, log: &std::path::Path, extra: &[&str]) -> Follower {
    let mut args = vec![
        "--follow",
        s(log),
        "--no-checkpoint",
        "--no-spill",
        "--multiline",
        "java",
        "--multiline-timeout-ms",
        "200",
    ];
    args.extend_from_slice(extra);
    Follower::start(intake, &args)
}

#[test]
fn multiline_an_event_cut_at_max_event_bytes_says_how_many_bytes_were_cut() {
    let intake = intake();
    let dir = fresh_dir("follow-java-cut");
    let log = dir.join("app.log");
    // A 5,000-byte header, then its trace: over a 2,000-byte max_event_bytes.
    let header = format!("2026-12-01T12:00:00 ERROR {}", "x".repeat(4_974));
    std::fs::write(
        &log,
        format!("{header}\n\tat a.b(C.java:1)\n2026-12-01T12:00:01 INFO next\n"),
    )
    .unwrap();
    let follower = follow_java(&intake, &log, &["--max-event-bytes", "2000"]);
    wait_events(&intake, 3);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let events = intake.events();
    let first = &events[0].value;
    assert_eq!(first["logship.truncated"], true, "{first}");
    let cut = first["logship.truncated_bytes"].as_u64().unwrap_or(0);
    let kept = first["message"].as_str().unwrap_or("").len() as u64;
    assert!(cut >= 3_000, "cut {cut}, kept {kept}: {first}");
    assert!(kept + cut >= 5_000, "cut {cut}, kept {kept}: {first}");
    let last = &events[2].value;
    assert_eq!(last["message"], "2026-12-01T12:00:01 INFO next");
    assert!(last.get("logship.truncated_bytes").is_none(), "{last}");
}
