//! The stall alarm (issue 17 part 6) against the strict intake: with the intake hung
//! (it reads requests and holds every answer), health becomes `stalled` and the callback
//! fires once; when the intake recovers, the alarm clears once.

mod common;

use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

use common::{builder, intake, rec, WAIT};
use logship::{Health, StallAlarm};

#[test]
fn the_alarm_fires_once_while_the_intake_hangs_and_clears_after_it_recovers() {
    let intake = intake();
    let (tx, rx) = mpsc::channel::<StallAlarm>();
    let tx = Mutex::new(tx);
    let (logship, _guard) = builder(&intake)
        .stall_after(Duration::from_millis(300))
        .on_stall(move |alarm| {
            let _ = tx.lock().unwrap().send(alarm.clone());
        })
        .build()
        .unwrap();
    logship.push(rec("before")).unwrap();
    logship.flush(WAIT).unwrap();
    assert_eq!(logship.stats().health, Health::Healthy);

    intake.pause();
    for i in 0..5 {
        logship.push(rec(&format!("while hung {i}"))).unwrap();
    }
    let alarm = rx.recv_timeout(WAIT).expect("the alarm fires");
    assert!(alarm.stalled);
    assert_eq!(alarm.waiting, 5);
    assert!(alarm.quiet_for >= Duration::from_millis(300));
    let s = logship.stats();
    assert_eq!(s.health, Health::Stalled, "{s:?}");
    assert_eq!(s.stalls, 1);
    // More events while still hung: no second alarm (the next message is the all-clear).
    logship.push(rec("still hung")).unwrap();

    intake.resume();
    let cleared = rx.recv_timeout(WAIT).expect("the alarm clears");
    assert!(!cleared.stalled, "fired twice for one stall: {cleared:?}");
    logship.flush(WAIT).unwrap();
    let s = logship.stats();
    assert_ne!(s.health, Health::Stalled);
    assert_eq!(s.stalls, 1);
    assert_eq!(s.events_delivered, 7);
}

#[test]
fn without_the_option_a_hung_intake_leaves_health_as_it_was() {
    let intake = intake();
    let (logship, _guard) = builder(&intake).build().unwrap();
    intake.pause();
    logship.push(rec("hung")).unwrap();
    assert_eq!(logship.stats().stalls, 0);
    assert_eq!(logship.stats().health, Health::Healthy);
    intake.resume();
    logship.flush(WAIT).unwrap();
}
