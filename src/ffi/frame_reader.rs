//! Exports of prepared frame readers: a host that reads the same fields into the same buffers
//! every frame checks its requests once (`mjb_frame_reader_new`) and then reads with one
//! handle lookup and the copy (`mjb_frame_reader_read`). The reading itself is the frames'
//! ([`crate::frame::Prepared`]); this room holds the C buffers it writes.
//!
//! A thread keeps the readers it read last ([`RECENT`]): a read that finds its reader there
//! writes no shared memory and takes no atomic read-modify-write (a lookup in the handle table
//! takes two, about 10 ns each on the 2-vCPU benchmark machine, a third of a humanoid frame's
//! memcpy). Handle numbers are never given out twice, so a number found there names that
//! reader; a freed reader is marked, and a read that finds it marked goes to the table, which
//! refuses it.

use super::boundary::call;
use super::enums::mjb_outcome;
use super::handle::{self, resolve, thread_key};
use super::host::{frame_requests, view, Many, MAX_REQUESTS};
use super::pointer::{out_param, zeroed};
use super::types::{mjb_endpoint, mjb_frame_info, mjb_frame_reader, mjb_frame_request};
use crate::frame::Prepared;
use crate::native::fields::Field;
use crate::outcome::Outcome;
use crate::outcome::Refusal;
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A prepared read and the caller's buffers it fills.
pub struct FrameReader {
    prepared: Prepared,
    /// Request k's buffer (a dangling, never dereferenced pointer for a field of no values).
    bufs: Box<[NonNull<f64>]>,
    /// Set when its handle is freed: a thread's cache of readers no longer serves it.
    freed: AtomicBool,
}

// SAFETY: the buffers are the host's, borrowed for the reader's life under the export's
// contract (which also makes one thread at a time read one reader); the reader itself only
// holds their addresses, an immutable `Prepared` and an atomic flag.
unsafe impl Send for FrameReader {}
unsafe impl Sync for FrameReader {}

/// How many readers a thread keeps (a host thread reads a few: one per endpoint it shows).
const RECENT_WAYS: usize = 4;

type Recent = [(usize, Option<Arc<FrameReader>>); RECENT_WAYS];

thread_local! {
    /// The readers this thread read last, by handle number, the latest first. A freed reader's
    /// memory (not its buffers) is released when its entry goes: on this thread's next read of
    /// another reader, when this thread frees it, or when the thread exits.
    static RECENT: RefCell<Recent> = const { RefCell::new([const { (0, None) }; RECENT_WAYS]) };
}

impl FrameReader {
    /// Copy the latest frame into the buffers.
    #[inline]
    fn read(&self, info: &mut mjb_frame_info) -> Result<(), Refusal> {
        // SAFETY: each buffer holds its request's length (checked at `mjb_frame_reader_new`)
        // and is the reader's alone during the read (the export's contract).
        unsafe { self.prepared.read(|k| self.bufs[k].as_ptr(), info) }
    }
}

/// Run `f` on the live reader `h`: from this thread's recent readers, or from the table (then
/// kept as the latest).
fn with_reader<T>(
    h: *mut mjb_frame_reader,
    f: impl FnOnce(&FrameReader) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    let key = h as usize;
    // `try_with`: a call from another thread-local's destructor, after this one is gone,
    // goes to the table.
    let cached = RECENT
        .try_with(|r| {
            let r = r.borrow();
            r.iter()
                .find(|(k, e)| *k == key && e.as_ref().is_some_and(live))
                .and_then(|(_, e)| e.as_ref().map(Arc::as_ptr))
        })
        .ok()
        .flatten();
    if let Some(p) = cached {
        // SAFETY: the entry's `Arc` keeps the reader alive until this thread drops the entry
        // (its next lookup that misses, its free of the reader, its exit), and `f` (a frame
        // copy) does none of those. (Called here, not inside `try_with`: the result is
        // returned in place instead of through the closure's frame.)
        return f(unsafe { &*p });
    }
    forget_freed(None);
    let reader = resolve(h)?.to_arc();
    let _ = RECENT.try_with(|r| {
        let mut r = r.borrow_mut();
        r.rotate_right(1);
        r[0] = (key, Some(reader.clone()));
    });
    f(&reader)
}

fn live(r: &Arc<FrameReader>) -> bool {
    !r.freed.load(Ordering::Acquire)
}

/// Drop this thread's entries of freed readers, and the entry of `key`.
fn forget_freed(key: Option<usize>) {
    let _ = RECENT.try_with(|r| {
        for e in r.borrow_mut().iter_mut() {
            if Some(e.0) == key || e.1.as_ref().is_some_and(|r| !live(r)) {
                *e = (0, None);
            }
        }
    });
}

/// Prepare a frame reader: check `n` requests once, exactly as `mjb_frame_read_many` checks
/// them (the same refusals and JSON pointers, at most 64 requests, nothing made on a refusal),
/// and keep each one's field, buffer and length. On `MJB_OK` each request's `written` is the
/// number of doubles every read copies into its buffer.
/// `requests`: read during the call only (NULL only with `n` 0). The buffers they point to are
/// borrowed for the reader's whole life: they must stay valid, and be written by nothing else
/// while a read runs, until `mjb_frame_reader_free`.
/// `out`: must not be NULL; NULL on entry, on `MJB_OK` a new reader the caller owns and frees
/// with `mjb_frame_reader_free`. A reader serves the model configuration it was made for: after
/// `mjb_endpoint_replace_model` its reads are refused (`MJB_REASON_CONFIGURATION`), after
/// `mjb_endpoint_free` too (`MJB_REASON_CLOSED`); it keeps the frames, not the endpoint,
/// alive. Takes no lock. Any thread.
/// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_frame_reader_new(
    ep: *mut mjb_endpoint,
    requests: *mut mjb_frame_request,
    n: usize,
    out: *mut *mut mjb_frame_reader,
) -> mjb_outcome {
    call(|| {
        let out = out_param(out, std::ptr::null_mut(), "out")?;
        let mut fields = [Field::Qpos; MAX_REQUESTS];
        let reqs = frame_requests(requests, n, &mut fields)?;
        let bufs = reqs
            .iter()
            .map(|r| NonNull::new(r.buf).unwrap_or(NonNull::dangling()))
            .collect();
        let prepared = view(ep)?.prepare(&mut Many {
            reqs,
            fields: &fields[..n],
        })?;
        let reader = FrameReader {
            prepared,
            bufs,
            freed: AtomicBool::new(false),
        };
        *out = handle::issue(thread_key(), Arc::new(reader))?;
        Ok(Outcome::Ok)
    })
}

/// Copy the latest complete frame into the reader's buffers: every request's values of one
/// tick, as `mjb_frame_read_many` copies them, without checking the requests again. `info`
/// (nullable) is zeroed on entry and receives the frame's tick, time, cause, published and
/// stale fields on `MJB_OK`. Never takes the native lock and never waits for a step in
/// progress; works on fenced endpoints. Refused with the buffers untouched: a model replaced
/// since the reader was made (`MJB_REJECTED`, `MJB_REASON_CONFIGURATION`), a closed endpoint
/// (`MJB_INVALID_ARGUMENT`, `MJB_REASON_CLOSED`, also for a reader made before a replacement:
/// once the endpoint is closed, preparing again cannot help). One
/// thread at a time per reader (a read writes its buffers); different readers, on any
/// threads, read concurrently.
/// `reader`: a live reader; NULL, freed or foreign handles return `MJB_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn mjb_frame_reader_read(
    reader: *mut mjb_frame_reader,
    info: *mut mjb_frame_info,
) -> mjb_outcome {
    call(|| {
        let mut unused = mjb_frame_info::default();
        let info = zeroed(info).unwrap_or(&mut unused);
        with_reader(reader, |r| r.read(info))?;
        Ok(Outcome::Ok)
    })
}

/// Free a frame reader (its buffers stay the caller's: after this returns the library never
/// writes them). NULL is a no-op returning `MJB_OK`; a freed or foreign handle returns
/// `MJB_INVALID_ARGUMENT`. Not while a read of the same reader runs on another thread (one
/// thread at a time per reader, as for reads). Works after the endpoint was closed.
#[no_mangle]
pub unsafe extern "C" fn mjb_frame_reader_free(reader: *mut mjb_frame_reader) -> mjb_outcome {
    call(|| {
        if let Some(r) = handle::free(reader)? {
            r.freed.store(true, Ordering::Release);
            forget_freed(Some(reader as usize));
        }
        Ok(Outcome::Ok)
    })
}

// A reader resolves without a lock (and mostly from the thread's recent readers).
handle::handle_kind!(mjb_frame_reader => Shared<FrameReader>, FRAME_READER);
