//! Admission honours deadlines while another thread steps flat out on a busy machine: a reader
//! with `timeout_ms = 1` is admitted or refused within about its deadline, never after many
//! milliseconds. The bound asserted is p99 ≤ 5 ms, no call over 25 ms and most calls admitted:
//! the deadline plus the scheduler's wake-up of a thread whose core runs a spinner (this debug
//! build measured p99 1.4–1.9 ms, 3.0 ms when other builds loaded the machine too). 0.2.0's
//! lock fails it (`cargo bench --bench admission`, loaded: p99 12 ms, three calls in four
//! refused busy after about 8 ms). The figures are the benchmark's; this
//! test only catches a lock that overshoots deadlines again. Its own test binary, one test,
//! so nothing else of the suite competes for the cores.

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
    let p99 = waits[waits.len() * 99 / 100];
    let max = *waits.last().unwrap();
    assert!(steps > 1000, "the stepper stepped flat out ({steps} steps)");
    assert!(
        admitted > 500,
        "waiters are admitted, not starved ({admitted} of 1000)"
    );
    assert!(p99 <= Duration::from_millis(5), "p99 {p99:?} (max {max:?})");
    assert!(max < Duration::from_millis(25), "max {max:?} (p99 {p99:?})");
}
