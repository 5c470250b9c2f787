//! Admission honours deadlines while another thread steps flat out on a busy machine: a reader
//! with `timeout_ms = 1` is admitted or refused within about its deadline, never after many
//! milliseconds. What is asserted is what separates a lock that honours deadlines from one that
//! overshoots them, and not the machine's scheduler: the median call ends within 2.5 ms, fewer
//! than one call in twenty overshoots the deadline by more than 4 ms, no call waits 100 ms (a
//! lost wake-up) and most calls are admitted. 0.2.0's lock fails it (`cargo bench --bench
//! admission`, loaded: p99 12 ms, three calls in four refused busy after about 8 ms, so its
//! median and its overshooting share both fail). A tail bound (p99 ≤ 5 ms) failed once in CI
//! at p99 5.1 ms, max 16.6 ms, with the other lanes' builds on both cores: the tail is the
//! scheduler's, and the benchmark reports it. Its own test binary, one test, so nothing else of
//! the suite competes for the cores.

mod common;
use common::*;
use mjbridge::ffi::*;
use std::time::{Duration, Instant};

#[test]
fn a_one_millisecond_deadline_is_honoured_while_another_thread_steps_flat_out_on_a_busy_machine() {
    let ep = open_model("contact_act.xml", "");
    let load = Contention::start(&ep, true);
    std::thread::sleep(Duration::from_millis(20));
    let mut waits = Vec::new();
    let mut admitted = 0;
    for _ in 0..1000 {
        let mut s = std::ptr::null_mut();
        let t = Instant::now();
        let o = unsafe { mjb_checkpoint_read(ep.0, 1, &mut s) };
        waits.push(t.elapsed());
        match o {
            mjb_outcome::MJB_OK => {
                admitted += 1;
                mjb_string_free(s);
            }
            mjb_outcome::MJB_REJECTED => assert_eq!(last_error()["reason"], "MJB_REASON_BUSY"),
            other => panic!("{other:?}"),
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let steps = load.stop();
    waits.sort();
    let p50 = waits[waits.len() / 2];
    let p99 = waits[waits.len() * 99 / 100];
    let max = *waits.last().unwrap();
    let overshot = waits
        .iter()
        .filter(|w| **w > Duration::from_millis(1 + 4))
        .count();
    let seen = format!("p50 {p50:?}, p99 {p99:?}, max {max:?}, {overshot} of 1000 over 5 ms");
    eprintln!("admission: {seen}");
    assert!(steps > 1000, "the stepper stepped flat out ({steps} steps)");
    assert!(
        admitted > 500,
        "waiters are admitted, not starved ({admitted} of 1000; {seen})"
    );
    assert!(p50 <= Duration::from_micros(2500), "{seen}");
    assert!(overshot < 50, "{seen}");
    assert!(max < Duration::from_millis(100), "{seen}");
}
