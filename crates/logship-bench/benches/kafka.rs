//! # Kafka: events/s produced, and a consumer group draining to the intake (plain `main`)
//!
//! What it measures (issue 33), against a real single-node Apache Kafka broker started by
//! `scripts/kafka-broker.sh` (KRaft, 4.4.0, on this machine):
//!
//! 1. **Produce**: `LOGSHIP_BENCH_EVENTS` events (default 1,000,000) with a 150-byte
//!    message pushed by one thread (blocking overflow: none dropped) through a pipeline with
//!    `vendor = kafka` (zstd, acks=all, idempotence: the defaults) to a 4-partition topic;
//!    events/s from the first push until shutdown returned with every event acknowledged,
//!    and this process's CPU per event (the pushing thread, the batcher, the senders,
//!    librdkafka's threads). Once with the defaults (`max_batch_records` 200), once with
//!    `max_batch_records` 2,000 (to a second topic), to see whether the batch's round trip
//!    bounds the rate.
//! 2. **Group drain**: the same topic drained by `logship ship --listen kafka://...` to a
//!    real intake in this process (NDJSON, gzip on: logship's default) in its count-only
//!    mode (it gunzips and counts lines, checks nothing: the receiving side stays cheap),
//!    by one instance, then by a group of two (a new group each time, so each reads the
//!    whole topic): events/s from the first event the intake saw to the last, and from
//!    when the group settled (every member joined and assigned, from the broker's group
//!    list: a member joining late makes the first one give its partitions up, which the
//!    first figure includes), the instances' CPU per event (from /proc), and per instance
//!    its cores, its busiest thread, the messages it read, commits and pauses (from its
//!    summary: the partitions' balance) and its pipeline's requests, concurrency peak and
//!    full-queue count (from its `--stats-json`).
//! 3. **Group drain, each instance on a CPU budget**: the same two runs with every
//!    instance in a cgroup of its own limited to `LOGSHIP_BENCH_INSTANCE_CPU` cores
//!    (default 0.5; 0 skips them), as Kubernetes pods with `limits.cpu: 500m` are. On this
//!    2-core machine unlimited instances share the cores with each other, the broker and
//!    the intake, so a second one cannot add much; with a budget each, the ratio shows
//!    whether anything shared (the broker, the partitions' spread, the group protocol)
//!    keeps a second member from adding its own. Each limited instance also says in how
//!    many 100 ms periods the quota throttled it. Needs a writable cgroup (root); skipped
//!    with a message otherwise.
//!
//! `LOGSHIP_BENCH_KAFKA=produce` runs the produce rows alone (to profile them).
//!
//! A warm-up run (a quarter of the events, not measured) goes first: a broker just started
//! spends its first seconds in the JVM's compiler threads.
//!
//! Every row also gives the CPU accounting of what shares the cores: the intake (this
//! process during a drain), the broker's JVM, and the whole machine (`/proc/stat`, other
//! sessions included), in cores busy, so a row shows whether the machine was full; and
//! under each row, logship's busiest thread: its time on a core and its time runnable but
//! waiting for one (`/proc/<pid>/task/*/schedstat`), in cores. Adding up to about 1, that
//! thread wanted a core all the time; well below 1, it waited on something else.
//!
//! How to run: `cargo build --release -p logship-cli --features kafka && cargo bench -p
//! logship-bench --features kafka --bench kafka` (the `logship` binary is taken from the
//! target directory, or `LOGSHIP_BIN`). Needs java and mvn (the broker). `cargo test
//! --benches --features kafka` runs it with 20,000 events as a smoke test.
//! The broker and the intake share the machine's cores with logship: the rates are floors.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use logship::{KafkaOptions, Level, Logship, Overflow, Record, Vendor};
use logship_intake::kafka_broker::KafkaBroker;
use logship_intake::{Intake, IntakeConfig};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

#[path = "../../logship-intake/kafka_admin.rs"]
mod kafka_admin;

#[path = "common/cpu_limit.rs"]
mod cpu_limit;

use cpu_limit::CpuLimit;

/// The message every event carries: exactly 150 bytes of ASCII.
const MSG150: &str =
    "order 4711 checked out: 3 items, total 149.90 EUR, paid by card via acme-pay in 182 ms; \
label queued for warehouse fra-2, priority normal, ETA 2 days.";
const _: () = assert!(MSG150.len() == 150);
const TOPIC: &str = "bench";
const PARTITIONS: i32 = 4;

/// CPU seconds (user + system) of a `/proc/<pid>/stat` (clock ticks of 1/100 s).
fn cpu_of(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // Fields 14 and 15 of the stat line (utime, stime) are 12 and 13 after the ')'.
    (tick(11) + tick(12)) / 100.0
}

/// The `logship` binary: `LOGSHIP_BIN`, else beside this bench in the target directory.
fn logship_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("LOGSHIP_BIN") {
        return p.into();
    }
    let exe = std::env::current_exe().expect("own path");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>");
    dir.join("logship")
}

/// One thread's name and, so far, its seconds on a core and its seconds runnable but
/// waiting for one (`/proc/<pid>/task/<tid>/schedstat`, in ns).
type ThreadTimes = (String, f64, f64);

/// Each thread of process `pid`, with its [`ThreadTimes`].
fn threads_of(pid: u32) -> Vec<ThreadTimes> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    dir.flatten()
        .map(|t| {
            let tid = t.file_name().to_string_lossy().into_owned();
            let read = |file: &str| {
                std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/{file}"))
                    .unwrap_or_default()
            };
            let sched = read("schedstat");
            let mut ns = sched
                .split_whitespace()
                .map(|f| f.parse::<f64>().unwrap_or(0.0) / 1e9);
            let (ran, waited) = (ns.next().unwrap_or(0.0), ns.next().unwrap_or(0.0));
            (format!("{}/{tid}", read("comm").trim()), ran, waited)
        })
        .collect()
}

/// The thread that ran the most between `before` and `after`, as "name (cores it ran and
/// cores it was runnable but waiting for a core)": when the two add up to about 1, that
/// thread wanted a core all the time (it bounds the rate, or the machine starved it); well
/// below 1, it waited for something else (I/O, another thread, the broker).
fn busiest_thread(before: &[ThreadTimes], after: &[ThreadTimes], secs: f64) -> String {
    let used = |(name, ran, waited): &ThreadTimes| {
        let was = before.iter().find(|b| &b.0 == name);
        let (ran0, waited0) = was.map_or((0.0, 0.0), |b| (b.1, b.2));
        (name.clone(), ran - ran0, waited - waited0)
    };
    after
        .iter()
        .map(used)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or_else(String::new, |(name, ran, waited)| {
            format!(
                "{} ({:.2} cores + {:.2} waiting for a core)",
                name.rsplit_once('/').map_or(&name[..], |n| n.0),
                ran / secs,
                waited / secs
            )
        })
}

/// CPU seconds the whole machine spent busy so far (`/proc/stat`: every core, every
/// process; ticks of 1/100 s).
fn machine_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<f64> = stat
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(1)
        .filter_map(|t| t.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    let all: f64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3).copied().unwrap_or(0.0) + ticks.get(4).copied().unwrap_or(0.0);
    (all - idle) / 100.0
}

/// CPU seconds of the broker's JVM so far.
fn broker_cpu(broker: &KafkaBroker) -> f64 {
    broker.pid().map_or(0.0, |p| cpu_of(&p.to_string()))
}

fn produce(broker: &KafkaBroker, n: u64, topic: &str, batch: usize) {
    produce_quietly(broker, n, topic, batch, true);
}

/// [`produce`], printing its row when `print` (not for the warm-up).
fn produce_quietly(broker: &KafkaBroker, n: u64, topic: &str, batch: usize, print: bool) {
    let cpu0 = cpu_of("self");
    let broker0 = broker_cpu(broker);
    let machine0 = machine_cpu();
    let threads0 = threads_of(std::process::id());
    let started = Instant::now();
    let (logship, guard) = Logship::builder()
        .vendor(Vendor::Kafka)
        .endpoint(format!("kafka://{}/{topic}", broker.bootstrap()))
        .max_batch_records(batch)
        .service("bench")
        .kafka(KafkaOptions::default())
        .overflow(Overflow::Block(Duration::from_secs(60)))
        .report_to_stderr(true)
        .spill(false)
        .build()
        .expect("pipeline");
    for _ in 0..n {
        let mut r = Record::new(Level::Info, "bench");
        r.message(MSG150);
        logship.push(r).expect("pushed (blocking overflow)");
    }
    drop(guard);
    let secs = started.elapsed().as_secs_f64();
    let cpu = cpu_of("self") - cpu0;
    let broker_busy = (broker_cpu(broker) - broker0) / secs;
    let machine_busy = (machine_cpu() - machine0) / secs;
    let busiest = busiest_thread(&threads0, &threads_of(std::process::id()), secs);
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, n, "{stats:?}");
    if !print {
        return;
    }
    println!(
        "| produce, 1 pipeline (zstd, acks=all, idempotent, batches of {batch}) | {n} | {secs:.2} | {:.0} | {:.2} | {:.2} | - | {broker_busy:.2} | {machine_busy:.2} |",
        n as f64 / secs,
        cpu / secs,
        cpu / n as f64 * 1e6
    );
    println!("    busiest thread {busiest}");
}

/// Drains the topic with a group of `members`: (events/s from the first event, events/s
/// once the group settled).
fn drain(
    broker: &KafkaBroker,
    intake: &Intake,
    n: u64,
    members: usize,
    cores_each: Option<f64>,
) -> (f64, f64) {
    intake.reset();
    let group = match cores_each {
        None => format!("drain{members}"),
        Some(_) => format!("drain{members}-limited"),
    };
    let url = format!("kafka://{}/{TOPIC}?group={group}", broker.bootstrap());
    let bin = logship_bin();
    // Each member's own CPU budget, when asked for.
    let limits: Vec<CpuLimit> = match cores_each {
        None => Vec::new(),
        Some(cores) => (0..members)
            .map(|i| {
                CpuLimit::new(
                    &format!("logship-bench-{}-{members}-{i}", std::process::id()),
                    cores,
                )
                .expect("a cgroup per instance (checked before)")
            })
            .collect(),
    };
    let mut children: Vec<Child> = (0..members)
        .map(|i| {
            let spill = std::env::temp_dir().join(format!(
                "logship-bench-kafka-{}-{members}-{i}",
                std::process::id()
            ));
            let log = std::fs::File::create(spill.with_extension("log")).expect("log file");
            limits
                .get(i)
                .map_or_else(|| Command::new(&bin), |l| l.command(&bin))
                .args(["ship", "--listen", &url, "--vendor", "ndjson", "--endpoint"])
                .arg(intake.url("/logs"))
                .arg("--spill-dir")
                .arg(&spill)
                .arg("--stats-json")
                .arg(spill.with_extension("json"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| {
                    panic!(
                        "start {} (build it with --features kafka): {e}",
                        bin.display()
                    )
                })
        })
        .collect();
    assert!(
        intake.wait_for_events(1, Duration::from_secs(120)),
        "no event arrived"
    );
    let first = Instant::now();
    let at_first = intake.stats().events;
    let each0: Vec<f64> = children
        .iter()
        .map(|c| cpu_of(&c.id().to_string()))
        .collect();
    let threads0: Vec<Vec<ThreadTimes>> = children.iter().map(|c| threads_of(c.id())).collect();
    let broker0 = broker_cpu(broker);
    let intake0 = cpu_of("self");
    let machine0 = machine_cpu();
    // When the group settles (every member joined and assigned): a second member joins a
    // group whose first member is already draining, which then gives its partitions up
    // at its next heartbeat and rejoins. The rate after that is the group's own.
    let watcher: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap())
        .create()
        .expect("group watcher");
    let mut settled: Option<(Instant, u64)> = None;
    let deadline = Instant::now() + Duration::from_secs(900);
    while intake.stats().events < n {
        assert!(
            Instant::now() < deadline,
            "only {} of {n} events arrived",
            intake.stats().events
        );
        if settled.is_none() && group_settled(&watcher, &group, members) {
            settled = Some((Instant::now(), intake.stats().events));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let end = Instant::now();
    let secs = (end - first).as_secs_f64();
    let each: Vec<f64> = children
        .iter()
        .zip(&each0)
        .map(|(c, before)| cpu_of(&c.id().to_string()) - before)
        .collect();
    let busiest: Vec<String> = children
        .iter()
        .zip(&threads0)
        .map(|(c, before)| busiest_thread(before, &threads_of(c.id()), secs))
        .collect();
    let cpu: f64 = each.iter().sum();
    let broker_busy = (broker_cpu(broker) - broker0) / secs;
    let intake_busy = (cpu_of("self") - intake0) / secs;
    let machine_busy = (machine_cpu() - machine0) / secs;
    // Each instance's peak RSS (prefetch included), before it is stopped.
    let peaks: Vec<String> = children
        .iter()
        .map(|c| {
            let status =
                std::fs::read_to_string(format!("/proc/{}/status", c.id())).unwrap_or_default();
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
                .map_or_else(|| "?".to_owned(), |kib| format!("{:.1} MiB", kib / 1024.0))
        })
        .collect();
    for c in &mut children {
        let _ = Command::new("kill").arg(c.id().to_string()).status();
        let _ = c.wait();
    }
    let throttled: Vec<String> = limits
        .iter()
        .map(|l| {
            format!(
                ", throttled by its CPU limit in {} periods of 100 ms",
                l.throttled_periods()
            )
        })
        .collect();
    drop(limits);
    // Each instance's share: its cores, its busiest thread, and the messages its summary
    // says it read (the partitions' balance).
    for (i, (busy, thread)) in each.iter().zip(&busiest).enumerate() {
        let log = std::env::temp_dir().join(format!(
            "logship-bench-kafka-{}-{members}-{i}.log",
            std::process::id()
        ));
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        // "N messages, N commits, N pauses, N consumer errors": pauses say the pipeline's
        // queue was full (the input waited for it).
        let read = text
            .split(", kafka: ")
            .nth(1)
            .and_then(|r| r.lines().next())
            .unwrap_or("?");
        println!(
            "    instance {i}: {:.2} cores{}, peak RSS {}, busiest thread {thread}, kafka: {read}",
            busy / secs,
            throttled.get(i).map_or("", |t| t.as_str()),
            peaks[i]
        );
        // From its final stats: whether its queue was ever full (the consumer waited for
        // the pipeline) and how many HTTP requests it kept in flight at most.
        let json = std::fs::read_to_string(log.with_extension("json")).unwrap_or_default();
        let field = |name: &str| {
            json.split(&format!("\"{name}\": "))
                .nth(1)
                .and_then(|r| r.split([',', '\n']).next())
                .unwrap_or("?")
                .to_owned()
        };
        println!(
            "      its pipeline: {} requests, concurrency peak {}, queue full {} times",
            field("requests"),
            field("concurrency_peak"),
            field("queue_full_returned")
        );
        let _ = std::fs::remove_file(&log);
        let _ = std::fs::remove_file(log.with_extension("json"));
    }
    let events = (n - at_first) as f64;
    let rate = events / secs;
    let steady = match settled {
        Some((at, got)) if n > got => {
            let rate = (n - got) as f64 / (end - at).as_secs_f64().max(1e-3);
            println!(
                "    group settled {:.2} s after the first event, {got} events in; from then on {rate:.0} events/s",
                (at - first).as_secs_f64()
            );
            rate
        }
        _ => {
            println!("    the group settled only after the last event");
            rate
        }
    };
    let limited = cores_each.map_or_else(String::new, |c| {
        format!(", each limited to {c} core (cgroup CPU quota)")
    });
    println!(
        "| group drain, {members} instance{}{limited} -> count-only intake (ndjson, gzip) | {n} | {secs:.2} | {rate:.0} | {:.2} | {:.2} | {intake_busy:.2} | {broker_busy:.2} | {machine_busy:.2} |",
        if members == 1 { "" } else { "s" },
        cpu / secs,
        cpu / events * 1e6
    );
    (rate, steady)
}

/// Whether consumer group `group` is stable with `members` members.
fn group_settled(watcher: &BaseConsumer, group: &str, members: usize) -> bool {
    let Ok(list) = watcher.fetch_group_list(Some(group), Duration::from_secs(1)) else {
        return false;
    };
    list.groups()
        .iter()
        .any(|g| g.state() == "Stable" && g.members().len() == members)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let n: u64 = std::env::var("LOGSHIP_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if bench { 1_000_000 } else { 20_000 });
    let Some(broker) = KafkaBroker::start("bench") else {
        println!("skipped: no java/mvn for the broker");
        return;
    };
    kafka_admin::create_topic(&broker.bootstrap(), TOPIC, PARTITIONS, &[]);
    kafka_admin::create_topic(&broker.bootstrap(), "bench-big-batches", PARTITIONS, &[]);
    println!(
        "cores: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("| run | events | seconds | events/s | cores busy (logship) | CPU µs/event (logship) | cores busy (intake) | cores busy (broker) | cores busy (whole machine) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    // Warm-up, not measured: a broker just started spends its first seconds compiling
    // (the JVM's JIT threads took more CPU than logship in the first produce run).
    kafka_admin::create_topic(&broker.bootstrap(), "warm-up", PARTITIONS, &[]);
    produce_quietly(&broker, (n / 4).max(1000), "warm-up", 1000, false);
    produce(&broker, n, TOPIC, 200);
    produce(&broker, n, "bench-big-batches", 2000);
    if std::env::var("LOGSHIP_BENCH_KAFKA").as_deref() == Ok("produce") {
        return; // the produce rows alone (to profile them)
    }
    // Count-only: the intake decodes (gunzips) each body and counts its lines, checking
    // nothing, so the drain rows measure the group rather than the intake's JSON checks.
    let intake = Intake::start(IntakeConfig {
        keep_events: false,
        count_only: true,
        ..IntakeConfig::default()
    })
    .expect("intake");
    let one = drain(&broker, &intake, n, 1, None);
    let two = drain(&broker, &intake, n, 2, None);
    println!(
        "\ntwo instances / one: {:.2}x from the first event, {:.2}x once each group settled",
        two.0 / one.0,
        two.1 / one.1
    );
    // The same with a CPU budget per instance, as pods with `limits.cpu` have: whether a
    // second member adds its budget, or something shared holds the group back.
    let cores_each: f64 = std::env::var("LOGSHIP_BENCH_INSTANCE_CPU")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.5);
    if cores_each <= 0.0 {
        return;
    }
    if let Err(why) = CpuLimit::new(
        &format!("logship-bench-{}-probe", std::process::id()),
        cores_each,
    ) {
        println!("\nper-instance CPU limit rows skipped: {why}");
        return;
    }
    let one = drain(&broker, &intake, n, 1, Some(cores_each));
    let two = drain(&broker, &intake, n, 2, Some(cores_each));
    println!(
        "\neach instance limited to {cores_each} core: two instances / one: {:.2}x from the first event, {:.2}x once each group settled",
        two.0 / one.0,
        two.1 / one.1
    );
}
