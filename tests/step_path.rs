//! The hot path allocates nothing: stepping (which publishes a frame per step), the combined
//! write+step call (and the write+step+read one), typed input writes and frame reads, once the endpoint is warm. A counting
//! global allocator checks it, counting per thread (the test harness's own thread allocates
//! while a test runs).

mod common;
use common::*;
use mjbridge::endpoint::WAIT_FOREVER;
use mjbridge::ffi::*;
use mjbridge::outcome::Outcome;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // A const initializer: reading it never allocates.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn counted() {
    let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        counted();
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        counted();
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        counted();
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations made by this thread while `f` runs.
fn allocations_of(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn stepping_publishing_writing_inputs_and_reading_frames_allocate_nothing() {
    let frame = "[\"qpos\",\"qvel\",\"act\",\"ctrl\",\"sensordata\",\"xpos\",\"xquat\",\"site_xpos\",\"mocap_pos\",\"xfrc_applied\"]";
    let ep = open_frames("host.xml", frame, "");
    let fields = [Field::Qpos, Field::Qvel, Field::Sensordata, Field::Xpos];
    let mut bufs: Vec<Vec<f64>> = fields.iter().map(|f| vec![0.0; ep.field_len(*f)]).collect();
    let mut reqs = requests(&fields, &mut bufs);
    let ctrl = [0.5, -0.25];
    let wrench = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    let inputs = [
        mjb_input {
            field: Field::Ctrl as i32,
            id: -1,
            values: ctrl.as_ptr(),
            n: 2,
        },
        mjb_input {
            field: Field::XfrcApplied as i32,
            id: 4,
            values: wrench.as_ptr(),
            n: 6,
        },
    ];
    let mut report = mjb_report::default();
    let mut info = mjb_frame_info::default();
    // Steps roll back to a pre-step image kept in a reused buffer: the integration state, or
    // the public fields where the engine has no state API (MuJoCo 2.2.2).
    let mut run = |n: usize| {
        for _ in 0..n {
            assert_eq!(
                unsafe { mjb_endpoint_step(ep.0, 1, WAIT_FOREVER, &mut report) },
                Outcome::Ok
            );
            let o =
                unsafe { mjb_write_step(ep.0, inputs.as_ptr(), 2, 1, WAIT_FOREVER, &mut report) };
            assert_eq!(o, Outcome::Ok);
            let o = unsafe {
                mjb_input_write(
                    ep.0,
                    Field::Ctrl as i32,
                    1,
                    ctrl.as_ptr(),
                    1,
                    WAIT_FOREVER,
                    &mut report,
                )
            };
            assert_eq!(o, Outcome::Ok);
            for _ in 0..5 {
                let o =
                    unsafe { mjb_frame_read_many(ep.0, reqs.as_mut_ptr(), reqs.len(), &mut info) };
                assert_eq!(o, Outcome::Ok);
            }
            let o = unsafe {
                mjb_write_step_read(
                    ep.0,
                    inputs.as_ptr(),
                    2,
                    1,
                    WAIT_FOREVER,
                    reqs.as_mut_ptr(),
                    reqs.len(),
                    &mut info,
                    &mut report,
                )
            };
            assert_eq!(o, Outcome::Ok);
        }
    };
    run(20); // warm: thread-locals, lazily sized buffers
    let n = allocations_of(|| run(200));
    assert_eq!(n, 0, "the step path allocated {n} times in 200 rounds");
    assert_eq!(info.tick, 660);
}
