//! The seam to the engine: what the linked MuJoCo is (`EngineInfo`), the shape of a model
//! (`Dims`, `Layout`), and one owned model/data pair (`Mujoco`) whose every call that can raise
//! `mju_error` goes through a guard in the C shim and comes back as a `NativeError`.
//!
//! Nothing here decides policy: callers (the endpoint) decide what an error means.

/// cbindgen:ignore
mod shim;

#[cfg(feature = "fault-injection")]
mod fault;
pub mod fields;

use shim::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::ptr::NonNull;
use std::sync::OnceLock;

#[cfg(feature = "fault-injection")]
pub use fault::Fault;
pub use shim::{MjData, MjModel, ShimWarnings as Warnings};

/// What went wrong inside a native call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeError {
    /// `mju_error` was raised; the message is MuJoCo's.
    Engine(String),
    /// The call reported failure without raising (a NULL model, for instance).
    Failed(String),
    /// The linked MuJoCo has no such API.
    Unsupported(String),
    /// The call completed with a status that is neither plain success nor an engine error.
    Unexpected(i32, String),
}

impl NativeError {
    pub fn message(&self) -> &str {
        match self {
            NativeError::Engine(m)
            | NativeError::Failed(m)
            | NativeError::Unsupported(m)
            | NativeError::Unexpected(_, m) => m,
        }
    }
}

/// The message buffer a guarded call fills on failure: on the stack, so the step path does
/// not allocate.
fn msg_buf() -> [c_char; MSG_CAP] {
    [0; MSG_CAP]
}

/// The same buffer left uninitialized, for the calls a step or a restore makes: zeroing 1 KiB
/// per guarded call is wasted when the call succeeds. The shim writes its NUL terminator
/// first (`msg[0] = '\0'`), so the text is read only up to bytes the shim wrote.
struct Msg(std::mem::MaybeUninit<[c_char; MSG_CAP]>);

impl Msg {
    fn new() -> Msg {
        Msg(std::mem::MaybeUninit::uninit())
    }

    fn ptr(&mut self) -> *mut c_char {
        self.0.as_mut_ptr().cast()
    }

    /// [`status`] for a call that wrote its message here.
    fn status(&mut self, code: c_int) -> Result<(), NativeError> {
        if code == SHIM_OK {
            return Ok(());
        }
        // SAFETY: the shim NUL-terminated the buffer before anything else (every guarded
        // call starts with `msg[0] = '\0'`); `CStr` reads only up to that NUL.
        let text = unsafe { CStr::from_ptr(self.ptr()) };
        let buf: Vec<c_char> = text
            .to_bytes_with_nul()
            .iter()
            .map(|&b| b as c_char)
            .collect();
        status(code, &buf)
    }
}

fn msg_text(buf: &[c_char]) -> String {
    // SAFETY: the shim always leaves a NUL-terminated string in the buffer.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn status(code: c_int, buf: &[c_char]) -> Result<(), NativeError> {
    match code {
        SHIM_OK => Ok(()),
        SHIM_ENGINE_ERROR => Err(NativeError::Engine(msg_text(buf))),
        SHIM_FAILED => Err(NativeError::Failed(msg_text(buf))),
        SHIM_UNSUPPORTED => Err(NativeError::Unsupported(msg_text(buf))),
        other => Err(NativeError::Unexpected(other, msg_text(buf))),
    }
}

/// The engine the bridge was compiled against and the one it runs with.
#[derive(Debug)]
pub struct EngineInfo {
    /// `mjVERSION_HEADER` of the headers the shim was compiled against.
    pub header_version: i32,
    /// `mj_version()` of the library loaded at run time.
    pub runtime_version: i32,
    /// `mj_versionString()` of the library loaded at run time.
    pub version_string: String,
    pub has_state_api: bool,
    pub has_eq_active_state: bool,
    /// `mjSTATE_INTEGRATION` of these headers (0 without the state API).
    pub sig_integration: u32,
    /// `mjSTATE_USER` of these headers: the host's inputs (controls, applied forces, mocap
    /// poses, equality activation, user data), which the engine's pipeline reads and never
    /// writes (0 without the state API).
    pub sig_user: u32,
    /// Bytes per `mjData.eq_active` element (1: mjtByte or bool), 0 when not in mjData.
    pub eq_active_size: i32,
    /// Equality activation is `mjModel.eq_active` (before MuJoCo 3.0): a model quantity, which
    /// the bridge never writes, so a state without an EQ_ACTIVE component is still complete.
    pub eq_active_in_model: bool,
    /// Named single-bit components of these headers.
    pub components: Vec<(&'static str, u32)>,
}

impl EngineInfo {
    /// The loaded library is the release the shim was compiled against.
    pub fn library_matches_headers(&self) -> bool {
        self.header_version == self.runtime_version
    }

    /// Everything `mujoco_integration_v1` needs is in this engine: the state API, and a
    /// state that holds equality activation (mjSTATE_EQ_ACTIVE) unless the model holds it
    /// (2.3.6 and 2.3.7 have the state API and keep activation in mjModel).
    pub fn supports_integration(&self) -> bool {
        self.has_state_api
            && self.sig_integration != 0
            && (self.has_eq_active_state || self.eq_active_in_model)
    }

    pub fn component_name(&self, mask: u32) -> Option<&'static str> {
        self.components
            .iter()
            .find(|(_, m)| *m == mask)
            .map(|(n, _)| *n)
    }

    pub fn component_mask(&self, name: &str) -> Option<u32> {
        self.components
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| *m)
    }
}

/// Facts about the linked engine, read once per process.
pub fn engine() -> &'static EngineInfo {
    static INFO: OnceLock<EngineInfo> = OnceLock::new();
    INFO.get_or_init(|| {
        let mut raw = ShimEngine {
            header_version: 0,
            runtime_version: 0,
            version_string: std::ptr::null(),
            has_state_api: 0,
            has_eq_active_state: 0,
            sig_integration: 0,
            eq_active_size: 0,
            eq_active_in_model: 0,
            sig_user: 0,
        };
        // SAFETY: plain out-parameter fill; mj_versionString returns a static string.
        unsafe { mjb_shim_engine_info(&mut raw) };
        let version_string = if raw.version_string.is_null() {
            String::new()
        } else {
            // SAFETY: static NUL-terminated string owned by MuJoCo.
            unsafe { CStr::from_ptr(raw.version_string) }
                .to_string_lossy()
                .into_owned()
        };
        let mut components = Vec::new();
        let mut name: *const c_char = std::ptr::null();
        let mut mask = 0u32;
        // SAFETY: index 0 query returns the count; names are static strings in the shim.
        let count = unsafe { mjb_shim_state_component(-1, &mut name, &mut mask) };
        for i in 0..count {
            unsafe { mjb_shim_state_component(i, &mut name, &mut mask) };
            let n = unsafe { CStr::from_ptr(name) }
                .to_str()
                .expect("ascii name");
            components.push((n, mask));
        }
        EngineInfo {
            header_version: raw.header_version,
            runtime_version: raw.runtime_version,
            version_string,
            has_state_api: raw.has_state_api != 0,
            has_eq_active_state: raw.has_eq_active_state != 0,
            sig_integration: raw.sig_integration,
            sig_user: raw.sig_user,
            eq_active_size: raw.eq_active_size,
            eq_active_in_model: raw.eq_active_in_model != 0,
            components,
        }
    })
}

/// The model dimensions a checkpoint's descriptor names, and the host surface's counts. The
/// shim fills it directly: the layout is `mjb_shim_dims` in `csrc/shim.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Dims {
    pub nq: i64,
    pub nv: i64,
    pub na: i64,
    pub nu: i64,
    pub nbody: i64,
    pub neq: i64,
    pub nmocap: i64,
    pub nuserdata: i64,
    pub npluginstate: i64,
    pub timestep: f64,
    pub njnt: i64,
    pub ngeom: i64,
    pub nsite: i64,
    pub nsensor: i64,
    pub nsensordata: i64,
}

impl Dims {
    /// The integer dimensions by name, in descriptor order.
    pub fn named(&self) -> [(&'static str, i64); 9] {
        [
            ("nq", self.nq),
            ("nv", self.nv),
            ("na", self.na),
            ("nu", self.nu),
            ("nbody", self.nbody),
            ("neq", self.neq),
            ("nmocap", self.nmocap),
            ("nuserdata", self.nuserdata),
            ("npluginstate", self.npluginstate),
        ]
    }
}

/// Dimensions are equal when every count is and the timesteps are the same bits.
impl PartialEq for Dims {
    fn eq(&self, o: &Self) -> bool {
        self.named() == o.named() && self.timestep.to_bits() == o.timestep.to_bits()
    }
}

/// One component of the integration state vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Component name from the shim's table, or `bitN` for a bit these headers do not name.
    pub name: String,
    pub mask: u32,
    pub offset: usize,
    pub len: usize,
}

/// A value of the state vector that the engine converts to an integer and uses as an index:
/// the cursor of a HISTORY ring buffer (MuJoCo >= 3.5), read by the engine as `(int)buf[1]`
/// and used as `(cursor + 1 + i) % nsample`. Its native domain is the integers
/// `0..nsample`, exactly as the engine writes them (so never `-0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// Index in the state vector.
    pub index: usize,
    pub nsample: u32,
    /// What owns the buffer, for messages: `actuator 3`, `sensor 0`.
    pub owner: String,
}

impl Cursor {
    /// `x` is one of the values the engine itself stores in this cursor.
    pub fn admits(&self, x: f64) -> bool {
        x.to_bits() == (x as u32 as f64).to_bits() && (x as u32) < self.nsample
    }
}

/// Where each component sits in `mj_getState(m, d, _, sig)`: components appear in bit order,
/// so a component's offset is the sum of `mj_stateSize(m, bit)` over the lower set bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub sig: u32,
    pub size: usize,
    pub segments: Vec<Segment>,
    /// HISTORY ring-buffer cursors in the state vector, in index order (derived from the
    /// model's `actuator_historyadr`/`sensor_historyadr`, never guessed).
    pub cursors: Vec<Cursor>,
    /// Where each [`Field`](fields::Field) that is a component starts in the state vector
    /// (by `Field::index`; the segment of its name), for writes into a state vector that
    /// compare no names.
    pub fields: [Option<usize>; fields::FIELD_COUNT],
}

impl Layout {
    /// Where field `f`'s component starts in the state vector (None: not a component).
    pub fn field_offset(&self, f: fields::Field) -> Option<usize> {
        self.fields[f.index()]
    }

    pub fn segment(&self, name: &str) -> Option<&Segment> {
        self.segments.iter().find(|s| s.name == name)
    }

    pub fn range(&self, name: &str) -> std::ops::Range<usize> {
        self.segment(name)
            .map(|s| s.offset..s.offset + s.len)
            .unwrap_or(0..0)
    }
}

/// Where a model comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    XmlPath(String),
    Xml(String),
}

/// Copies of the public fields of mjData.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Public {
    pub time: f64,
    pub qpos: Vec<f64>,
    pub qvel: Vec<f64>,
    pub act: Vec<f64>,
    pub ctrl: Vec<f64>,
}

impl Public {
    /// Equal bit for bit (so -0.0 differs from 0.0 and NaN equals itself).
    pub fn same_bits(&self, o: &Public) -> bool {
        fn eq(a: &[f64], b: &[f64]) -> bool {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        }
        self.time.to_bits() == o.time.to_bits()
            && eq(&self.qpos, &o.qpos)
            && eq(&self.qvel, &o.qvel)
            && eq(&self.act, &o.act)
            && eq(&self.ctrl, &o.ctrl)
    }
}

// The word copies of frames and state plans. See `crate::frame` for why the x86-64 version
// is an `asm!` block: it moves two aligned words per SSE2 instruction (four with AVX) with
// the semantics of a loop of relaxed 8-byte atomic accesses, the portable version; from 8 KiB
// on it is the processor's string copy.

/// Copy `n` 8-byte words from `src` to `dst` (non-overlapping, both 8-byte aligned), one side
/// being a frame slot another thread may read or write meanwhile (see above).
///
/// # Safety
/// `src` is valid for reading and `dst` for writing `n` words.
#[cfg(target_arch = "x86_64")]
#[inline]
pub unsafe fn copy_words(src: *const u64, dst: *mut u64, n: usize) {
    if n >= STRING_COPY_WORDS {
        copy_words_string(src, dst, n)
    } else if n >= 16 && std::arch::is_x86_feature_detected!("avx") {
        copy_words_avx(src, dst, n)
    } else {
        copy_words_sse2(src, dst, n)
    }
}

/// From this many words on (8 KiB) a copy is one `rep movsb`: the processor's fast string
/// copy, which glibc's memcpy also uses for large copies. Measured on the 2-vCPU benchmark
/// machine (AMD EPYC, ERMS and FSRM), `cargo bench --bench frames`, many_bodies (fields of
/// 555 to 1,288 words): the prepared read went from 1.55–1.60× to 1.33–1.35× memcpy; below
/// about 1,000 words the vector loops are as fast or faster.
#[cfg(target_arch = "x86_64")]
const STRING_COPY_WORDS: usize = 1024;

/// The string copy: `rep movsb`, then `sfence`. Its accesses have no size or order one can
/// rely on (the processor may write a string's cache lines out of order), which the frames'
/// sequence check does not need: a read that a publication overlapped is discarded whatever
/// it saw, and a reader that sees the writer's closing sequence store sees every store of the
/// string before it (Intel's rule for fast strings is a separate flag stored after the string;
/// the `sfence` makes that hold on every vendor). Loads are not reordered with later loads.
///
/// # Safety
/// As for [`copy_words`].
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn copy_words_string(src: *const u64, dst: *mut u64, n: usize) {
    std::arch::asm!(
        "rep movsb",
        "sfence",
        inout("rsi") src => _,
        inout("rdi") dst => _,
        inout("rcx") n * 8 => _,
        options(nostack, preserves_flags),
    );
}

/// The SSE2 copy: two words per move.
///
/// # Safety
/// As for [`copy_words`].
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn copy_words_sse2(src: *const u64, dst: *mut u64, n: usize) {
    std::arch::asm!(
        "cmp {n}, 8",
        "jb 3f",
        "2:",
        "movups xmm0, xmmword ptr [{s}]",
        "movups xmm1, xmmword ptr [{s} + 16]",
        "movups xmm2, xmmword ptr [{s} + 32]",
        "movups xmm3, xmmword ptr [{s} + 48]",
        "movups xmmword ptr [{d}], xmm0",
        "movups xmmword ptr [{d} + 16], xmm1",
        "movups xmmword ptr [{d} + 32], xmm2",
        "movups xmmword ptr [{d} + 48], xmm3",
        "add {s}, 64",
        "add {d}, 64",
        "sub {n}, 8",
        "cmp {n}, 8",
        "jae 2b",
        "3:",
        "cmp {n}, 2",
        "jb 5f",
        "4:",
        "movups xmm0, xmmword ptr [{s}]",
        "movups xmmword ptr [{d}], xmm0",
        "add {s}, 16",
        "add {d}, 16",
        "sub {n}, 2",
        "cmp {n}, 2",
        "jae 4b",
        "5:",
        "test {n}, {n}",
        "jz 6f",
        "mov {t}, qword ptr [{s}]",
        "mov qword ptr [{d}], {t}",
        "6:",
        s = inout(reg) src => _,
        d = inout(reg) dst => _,
        n = inout(reg) n => _,
        t = out(reg) _,
        out("xmm0") _,
        out("xmm1") _,
        out("xmm2") _,
        out("xmm3") _,
        options(nostack),
    );
}

/// The same copy with 32-byte AVX moves, for 16 words or more on processors that have them
/// (detected once): four words per instruction, as glibc's memcpy moves them (a tenth faster
/// than the SSE2 loop on the humanoid's frame fields, measured on the 2-vCPU benchmark
/// machine). Each aligned 8-byte quarter of a move is a single-copy-atomic quadword access, as
/// for the SSE2 moves. The words past the last whole block of 16 are copied by moving the last
/// 16 words again (the overlap rewrites words already written with the same values: a
/// reader's sequence check is unaffected, no one else writes the destination meanwhile, and
/// nothing outside the `n` words is touched). `vzeroupper` leaves the vector registers as SSE
/// code expects them.
///
/// # Safety
/// As for [`copy_words`], with `n >= 16` and AVX present.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn copy_words_avx(src: *const u64, dst: *mut u64, n: usize) {
    std::arch::asm!(
        "lea {es}, [{s} + 8 * {n} - 128]",
        "lea {ed}, [{d} + 8 * {n} - 128]",
        "2:",
        "vmovups ymm0, ymmword ptr [{s}]",
        "vmovups ymm1, ymmword ptr [{s} + 32]",
        "vmovups ymm2, ymmword ptr [{s} + 64]",
        "vmovups ymm3, ymmword ptr [{s} + 96]",
        "vmovups ymmword ptr [{d}], ymm0",
        "vmovups ymmword ptr [{d} + 32], ymm1",
        "vmovups ymmword ptr [{d} + 64], ymm2",
        "vmovups ymmword ptr [{d} + 96], ymm3",
        "add {s}, 128",
        "add {d}, 128",
        "sub {n}, 16",
        "cmp {n}, 16",
        "jae 2b",
        "test {n}, {n}",
        "jz 3f",
        "vmovups ymm0, ymmword ptr [{es}]",
        "vmovups ymm1, ymmword ptr [{es} + 32]",
        "vmovups ymm2, ymmword ptr [{es} + 64]",
        "vmovups ymm3, ymmword ptr [{es} + 96]",
        "vmovups ymmword ptr [{ed}], ymm0",
        "vmovups ymmword ptr [{ed} + 32], ymm1",
        "vmovups ymmword ptr [{ed} + 64], ymm2",
        "vmovups ymmword ptr [{ed} + 96], ymm3",
        "3:",
        "vzeroupper",
        s = inout(reg) src => _,
        d = inout(reg) dst => _,
        n = inout(reg) n => _,
        es = out(reg) _,
        ed = out(reg) _,
        out("ymm0") _,
        out("ymm1") _,
        out("ymm2") _,
        out("ymm3") _,
        options(nostack),
    );
}

/// The portable copy: relaxed atomic accesses on the slot's side, four at a time.
///
/// # Safety
/// As for the x86-64 version.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub unsafe fn copy_words(src: *const u64, dst: *mut u64, n: usize) {
    // Which side is the slot does not matter to the result: both sides are accessed as
    // atomics here (the other side is the owned data or the caller's buffer, which nobody
    // else touches during the copy, so atomic access to it is merely unneeded).
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let src = std::slice::from_raw_parts(src.cast::<AtomicU64>(), n);
    let dst = std::slice::from_raw_parts(dst.cast_const().cast::<AtomicU64>(), n);
    let mut s4 = src.chunks_exact(4);
    let mut d4 = dst.chunks_exact(4);
    for (s, d) in (&mut s4).zip(&mut d4) {
        let v = [
            s[0].load(Relaxed),
            s[1].load(Relaxed),
            s[2].load(Relaxed),
            s[3].load(Relaxed),
        ];
        d[0].store(v[0], Relaxed);
        d[1].store(v[1], Relaxed);
        d[2].store(v[2], Relaxed);
        d[3].store(v[3], Relaxed);
    }
    for (s, d) in s4.remainder().iter().zip(d4.remainder()) {
        d.store(s.load(Relaxed), Relaxed);
    }
}

/// One component of a state vector: `len` values read from `src` in the pair's data
/// (doubles, or bytes the state holds as doubles).
struct Piece {
    src: *const u8,
    len: usize,
    byte: bool,
    /// One of the host's inputs (`mjSTATE_USER`), which a step never writes.
    input: bool,
}

/// The pre-step image's layout: the plan's double components copied in as few stretches as
/// the data allows, then the byte components as doubles. mjData keeps its arrays in one
/// buffer, in an order where the integration state's components mostly sit next to each other
/// (64-byte aligned, so with a few bytes of padding between them): one copy of a stretch
/// replaces one copy per component. Whatever lies between two components in a stretch is
/// copied along and never used: [`Span::unpack`] takes each component from where it sits in
/// the image, and only the state vector it makes is ever written back.
///
/// The components come in two parts. Those a step moves (time, positions, velocities,
/// activations, warm-start, plugin and history state) are copied at every capture; the
/// host's inputs (`mjSTATE_USER`: controls, applied forces, mocap poses, equality activation,
/// user data), which MuJoCo's pipeline reads and never writes, only when the caller says they
/// may have changed since its last capture (on the humanoid, 83 of the 233 values are copied
/// on a step that follows a step).
struct Span {
    /// Copied at every capture: what a step moves.
    moved: Part,
    /// The host's inputs: copied when they may have changed since the last capture.
    inputs: Part,
    /// Per piece (in state order), the image word where its values start.
    at: Vec<usize>,
    words: usize,
}

/// One part of a [`Span`]: its stretches, then its byte pieces (by index).
struct Part {
    runs: Vec<Run>,
    bytes: Vec<usize>,
}

/// One stretch of a [`Span`]: `words` words from `src` to image word `at`.
struct Run {
    src: *const u64,
    words: usize,
    at: usize,
}

/// Where the public fields of the live data `d` are.
///
/// # Safety
/// `d` is a live data.
unsafe fn shim_fields(d: *mut MjData) -> ShimFields {
    let mut f = ShimFields {
        time: std::ptr::null_mut(),
        qpos: std::ptr::null_mut(),
        qvel: std::ptr::null_mut(),
        act: std::ptr::null_mut(),
        ctrl: std::ptr::null_mut(),
    };
    mjb_shim_fields_of(d, &mut f);
    f
}

/// Where the main buffer of the live data `d` is (address, bytes).
fn data_buffer(d: *const MjData) -> (usize, usize) {
    let (mut buffer, mut bytes) = (std::ptr::null(), 0usize);
    // SAFETY: a live data; the shim only reads two of its members.
    unsafe { mjb_shim_data_buffer(d, &mut buffer, &mut bytes) };
    (buffer as usize, bytes)
}

/// At most this many bytes between two components copied as one stretch (padding is below 64;
/// a small array between them costs less to carry along than a second copy).
const SPAN_GAP: usize = 256;

impl Span {
    /// The layout of `pieces` of a data whose main buffer is `buffer` (start, bytes): a
    /// stretch never leaves that allocation.
    fn new(pieces: &[Piece], buffer: (usize, usize)) -> Span {
        let (mut at, mut words) = (vec![0; pieces.len()], 0);
        let moved = Part::new(pieces, false, buffer, &mut at, &mut words);
        let inputs = Part::new(pieces, true, buffer, &mut at, &mut words);
        Span {
            moved,
            inputs,
            at,
            words,
        }
    }

    /// Copy the live components into `image` (`words` long): those a step moves, and the
    /// inputs too when `inputs` (else the image keeps the inputs of an earlier capture).
    fn capture(&self, pieces: &[Piece], image: &mut [u64], inputs: bool) {
        assert_eq!(image.len(), self.words, "image length");
        self.moved.capture(pieces, &self.at, image);
        if inputs {
            self.inputs.capture(pieces, &self.at, image);
        }
    }

    /// Whether a captured image holds the state vector `want`, bit for bit.
    #[cfg(debug_assertions)]
    fn holds(&self, pieces: &[Piece], image: &[u64], want: &[f64]) -> bool {
        let mut o = 0;
        pieces.iter().enumerate().all(|(k, p)| {
            let w = &want[o..o + p.len];
            o += p.len;
            image[self.at[k]..self.at[k] + p.len]
                .iter()
                .zip(w)
                .all(|(&a, b)| a == b.to_bits())
        })
    }

    /// The state vector (`mj_getState`'s layout) of a captured image.
    fn unpack(&self, pieces: &[Piece], image: &[u64], out: &mut [f64]) {
        let mut o = 0;
        for (k, p) in pieces.iter().enumerate() {
            let from = &image[self.at[k]..self.at[k] + p.len];
            for (d, &w) in out[o..o + p.len].iter_mut().zip(from) {
                *d = f64::from_bits(w);
            }
            o += p.len;
        }
    }
}

impl Part {
    /// The stretches and byte pieces of the pieces whose `input` is `input`, placed in the
    /// image from word `*words` on (`at` gets each one's first word).
    fn new(
        pieces: &[Piece],
        input: bool,
        buffer: (usize, usize),
        at: &mut [usize],
        words: &mut usize,
    ) -> Part {
        let inside = |from: usize, to: usize| from >= buffer.0 && to <= buffer.0 + buffer.1;
        let ours = |k: &usize| pieces[*k].input == input;
        let mut order: Vec<usize> = (0..pieces.len())
            .filter(|&k| !pieces[k].byte)
            .filter(ours)
            .collect();
        order.sort_by_key(|&k| pieces[k].src as usize);
        let mut runs = Vec::<Run>::new();
        for k in order {
            let p = &pieces[k];
            let (from, to) = (p.src as usize, p.src as usize + 8 * p.len);
            if let Some(r) = runs.last_mut() {
                let (start, end) = (r.src as usize, r.src as usize + 8 * r.words);
                let gap = from.wrapping_sub(end);
                if from >= end && gap <= SPAN_GAP && gap % 8 == 0 && inside(start, to) {
                    at[k] = r.at + (from - start) / 8;
                    r.words = (to - start) / 8;
                    *words = r.at + r.words;
                    continue;
                }
            }
            runs.push(Run {
                src: p.src.cast(),
                words: p.len,
                at: *words,
            });
            at[k] = *words;
            *words += p.len;
        }
        let bytes: Vec<usize> = (0..pieces.len())
            .filter(|&k| pieces[k].byte)
            .filter(ours)
            .collect();
        for &k in &bytes {
            at[k] = *words;
            *words += pieces[k].len;
        }
        Part { runs, bytes }
    }

    fn capture(&self, pieces: &[Piece], at: &[usize], image: &mut [u64]) {
        for r in &self.runs {
            // SAFETY: `src` holds `words` words inside the data's main buffer (or one
            // component), which never overlaps the image; `at + words <= image.len()`.
            unsafe { copy_words(r.src, image.as_mut_ptr().add(r.at), r.words) };
        }
        for &k in &self.bytes {
            let p = &pieces[k];
            // SAFETY: `src` holds `len` bytes of the live data (proven at `prove`).
            let src = unsafe { std::slice::from_raw_parts(p.src, p.len) };
            for (d, &b) in image[at[k]..at[k] + p.len].iter_mut().zip(src) {
                *d = f64::from(b).to_bits();
            }
        }
    }
}

/// Where `mj_getState(m, d, _, sig)` reads each component of one pair's data from, so that
/// the pre-step image (every step) and the readbacks are plain copies instead of a guarded
/// engine call that walks every component bit. Made per model (open, replacement) and proven
/// before use: on a scratch data of the same model, every value of every component is set to
/// a value of its own, and the copy must equal `mj_getState` bit for bit and in size. A
/// component the shim cannot place (a newer engine's) leaves the pair on `mj_getState`.
/// mjData's arrays never move for the data's lifetime, so the pointers stay valid.
struct StatePlan {
    size: usize,
    pieces: Vec<Piece>,
    /// The pre-step image's layout.
    span: Span,
    /// Where test builds put `mj_getState`'s vector to compare every copy with.
    #[cfg(debug_assertions)]
    check: std::cell::RefCell<Vec<f64>>,
}

impl StatePlan {
    fn copy_into(&self, out: &mut [f64]) {
        let mut at = 0;
        for p in &self.pieces {
            let dst = &mut out[at..at + p.len];
            if p.byte {
                // SAFETY: `src` holds `len` bytes of the live data (proven at `prove`).
                let src = unsafe { std::slice::from_raw_parts(p.src, p.len) };
                for (d, &b) in dst.iter_mut().zip(src) {
                    *d = f64::from(b);
                }
            } else {
                // SAFETY: `src` holds `len` doubles of the live data, which never overlaps
                // the caller's buffer. Inline moves: most components are a few values, where
                // a call to memcpy costs more than the copy.
                unsafe { copy_words(p.src.cast(), dst.as_mut_ptr().cast(), p.len) };
            }
            at += p.len;
        }
    }

    /// Whether the live components equal `want` (of length `size`) bit for bit.
    fn matches(&self, want: &[f64]) -> bool {
        let mut at = 0;
        for p in &self.pieces {
            let w = &want[at..at + p.len];
            let same = if p.byte {
                // SAFETY: `src` holds `len` bytes of the live data (proven at `prove`).
                let src = unsafe { std::slice::from_raw_parts(p.src, p.len) };
                src.iter()
                    .zip(w)
                    .all(|(&b, v)| f64::from(b).to_bits() == v.to_bits())
            } else {
                // SAFETY: `src` holds `len` doubles of the live data, under the native lock.
                let src = unsafe { std::slice::from_raw_parts(p.src.cast::<u64>(), p.len) };
                src.iter().zip(w).all(|(&a, v)| a == v.to_bits())
            };
            if !same {
                return false;
            }
            at += p.len;
        }
        true
    }

    /// The plan of `sig` for `mj`'s data, or None when it is not exactly `mj_getState`.
    fn prove(mj: &Mujoco, sig: u32) -> Option<StatePlan> {
        let size = mj.state_size(sig).ok()?;
        let mut msg = msg_buf();
        let mut t: *mut MjData = std::ptr::null_mut();
        // SAFETY: valid model; out-pointer and message buffer.
        let code = unsafe { mjb_shim_make_data(mj.m.as_ptr(), &mut t, msg.as_mut_ptr()) };
        if status(code, &msg).is_err() || t.is_null() {
            return None;
        }
        let proven = (|| {
            let trial = mj.pieces(t, sig).ok()??;
            if trial.pieces.iter().map(|p| p.len).sum::<usize>() != size || trial.size != size {
                return None;
            }
            // A value of its own for every element of every component (bytes flipped from
            // what make_data set), so a component read from the wrong array cannot match.
            let mut k = 0u64;
            for p in &trial.pieces {
                for i in 0..p.len {
                    k += 1;
                    // SAFETY: `src` holds `len` elements of the scratch data `t`, which
                    // nothing else uses.
                    unsafe {
                        if p.byte {
                            let b = p.src.cast_mut().add(i);
                            *b = u8::from(*b == 0);
                        } else {
                            *p.src.cast::<f64>().cast_mut().add(i) = k as f64 + 0.25;
                        }
                    }
                }
            }
            let mut engine = vec![0.0; size];
            mj.engine_get_state(t, sig, &mut engine).ok()?;
            let mut copied = vec![0.0; size];
            trial.copy_into(&mut copied);
            let mut image = vec![0; trial.span.words];
            trial.span.capture(&trial.pieces, &mut image, true);
            let mut unpacked = vec![0.0; size];
            trial.span.unpack(&trial.pieces, &image, &mut unpacked);
            let same = |engine: &[f64], v: &[f64]| {
                engine
                    .iter()
                    .zip(v)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            };
            if !(same(&engine, &copied) && same(&engine, &unpacked)) {
                return None;
            }
            // Then every component a step moves gets a new value and is captured alone: the
            // image must be the new state, inputs kept from the first capture.
            for p in trial.pieces.iter().filter(|p| !p.input) {
                for i in 0..p.len {
                    // SAFETY: as above.
                    unsafe {
                        if p.byte {
                            let b = p.src.cast_mut().add(i);
                            *b = u8::from(*b == 0);
                        } else {
                            *p.src.cast::<f64>().cast_mut().add(i) += 0.5;
                        }
                    }
                }
            }
            mj.engine_get_state(t, sig, &mut engine).ok()?;
            trial.span.capture(&trial.pieces, &mut image, false);
            trial.span.unpack(&trial.pieces, &image, &mut unpacked);
            same(&engine, &unpacked).then_some(())
        })();
        // SAFETY: `t` was made above and is not used after this.
        unsafe { mjb_shim_delete(std::ptr::null_mut(), t) };
        proven?;
        mj.pieces(mj.d.as_ptr(), sig).ok()?
    }
}

/// One owned MuJoCo model/data pair. Freed on drop.
pub struct Mujoco {
    m: NonNull<MjModel>,
    d: NonNull<MjData>,
    dims: Dims,
    /// `mj_stateSize` per signature: the model never changes for this pair, so each size is
    /// asked of the engine once (get/set check buffer lengths on every call, on the step path).
    state_sizes: std::cell::RefCell<Vec<(u32, usize)>>,
    /// Where `mj_getState` reads each component of this pair's data from, for one signature,
    /// proven once against the engine ([`StatePlan::prove`]); `None` where it could not be.
    plan: std::cell::OnceCell<(u32, Option<StatePlan>)>,
    /// Armed one-shot faults (`fault-injection` builds only).
    #[cfg(feature = "fault-injection")]
    faults: fault::Faults,
    /// Where the host-surface fields of the owned data are.
    table: fields::FieldTable,
    /// A second data for kinematics after a restore, allocated when first prepared.
    scratch: Option<fields::Scratch>,
    /// The last pre-step image ([`Mujoco::capture_image`]; reused).
    image: Vec<u64>,
    /// The live inputs equal those in `image`: nothing wrote them since it was captured, so
    /// the next capture copies only what a step moves. Cleared by every write to the data
    /// other than a clean step (a `Cell`: `data_ptr`, which hands the data out, clears it).
    image_inputs: std::cell::Cell<bool>,
}

// SAFETY: the pair is only ever touched through `&mut self` or `&self` under the endpoint's
// native lock; MuJoCo model/data have no thread affinity.
unsafe impl Send for Mujoco {}

impl Drop for Mujoco {
    fn drop(&mut self) {
        self.scratch = None;
        // SAFETY: we own both pointers and nothing else refers to them after drop.
        unsafe { mjb_shim_delete(self.m.as_ptr(), self.d.as_ptr()) };
    }
}

impl Mujoco {
    /// Load and compile a model and make its data. Compile errors carry MuJoCo's message.
    pub fn load(source: &ModelSource) -> Result<Mujoco, NativeError> {
        // MuJoCo's XML loader is not reentrant; the shim leaves serializing it to us.
        static LOAD: parking_lot::Mutex<()> = parking_lot::Mutex::new(());
        let mut msg = msg_buf();
        let mut m: *mut MjModel = std::ptr::null_mut();
        let loading = LOAD.lock();
        let code = match source {
            ModelSource::XmlPath(p) => {
                let c = CString::new(p.as_str())
                    .map_err(|_| NativeError::Failed("path contains a NUL byte".into()))?;
                // SAFETY: valid C string, out-pointer and message buffer of MSG_CAP bytes.
                unsafe { mjb_shim_load_xml_path(c.as_ptr(), &mut m, msg.as_mut_ptr()) }
            }
            ModelSource::Xml(x) => unsafe {
                // SAFETY: pointer/length of a live string; the shim copies it.
                mjb_shim_load_xml_string(x.as_ptr().cast(), x.len(), &mut m, msg.as_mut_ptr())
            },
        };
        drop(loading);
        status(code, &msg)?;
        let m = NonNull::new(m).ok_or_else(|| NativeError::Failed(msg_text(&msg)))?;
        let mut d: *mut MjData = std::ptr::null_mut();
        // SAFETY: m is a valid model we own.
        let code = unsafe { mjb_shim_make_data(m.as_ptr(), &mut d, msg.as_mut_ptr()) };
        if let Err(e) = status(code, &msg) {
            unsafe { mjb_shim_delete(m.as_ptr(), std::ptr::null_mut()) };
            return Err(e);
        }
        let d = NonNull::new(d).expect("make_data succeeded");
        Ok(Self::from_parts(m, d))
    }

    /// Take ownership of a host's pair.
    ///
    /// # Safety
    /// `m` and `d` must be a live model and data made for it by the linked MuJoCo, not used or
    /// freed by anyone else from now on.
    pub unsafe fn adopt(m: NonNull<MjModel>, d: NonNull<MjData>) -> Mujoco {
        mjb_shim_install_error_handler();
        Self::from_parts(m, d)
    }

    /// Give an adopted pair back to the host untouched (a refused adopt): nothing is freed but
    /// what the bridge allocated itself.
    pub fn give_back(mut self) {
        self.scratch = None;
        std::mem::forget(self);
    }

    fn from_parts(m: NonNull<MjModel>, d: NonNull<MjData>) -> Mujoco {
        let mut dims = Dims::default();
        // SAFETY: valid model; `Dims` has the layout of the shim's `mjb_shim_dims`.
        unsafe { mjb_shim_dims_of(m.as_ptr(), &mut dims) };
        Mujoco {
            m,
            d,
            dims,
            state_sizes: Default::default(),
            plan: Default::default(),
            #[cfg(feature = "fault-injection")]
            faults: Default::default(),
            // SAFETY: a live pair.
            table: unsafe { fields::FieldTable::of(m.as_ptr(), d.as_ptr()) },
            scratch: None,
            image: Vec::new(),
            image_inputs: std::cell::Cell::new(false),
        }
    }

    /// The model's fingerprint: `sha256:<hex>` of MuJoCo's own binary serialization of the
    /// compiled model (`mj_saveModel`) without its asset paths, so two models with the same
    /// dimensions but, say, another damping differ, and the same model opened through another
    /// path does not.
    pub fn fingerprint(&self) -> Result<String, NativeError> {
        use sha2::Digest;
        // SAFETY: valid model.
        let size = unsafe { mjb_shim_model_size(self.m.as_ptr()) };
        let len = usize::try_from(size)
            .map_err(|_| NativeError::Failed(format!("mj_sizeModel gave {size}")))?;
        let mut bytes = vec![0u8; len];
        let mut written = 0i64;
        let mut msg = msg_buf();
        // SAFETY: `bytes` holds `size` bytes; the shim writes at most that many.
        let code = unsafe {
            mjb_shim_save_model(
                self.m.as_ptr(),
                bytes.as_mut_ptr(),
                size,
                &mut written,
                msg.as_mut_ptr(),
            )
        };
        status(code, &msg)?;
        bytes.truncate(written.clamp(0, size) as usize);
        Ok(crate::doc::jcs::digest_text(&sha2::Sha256::digest(&bytes)))
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    pub fn model_ptr(&self) -> *mut MjModel {
        self.m.as_ptr()
    }

    /// The owned data, for tests and benches that call the engine on it directly (as if it
    /// wrote the data: the next pre-step image copies the inputs again).
    pub fn data_ptr(&self) -> *mut MjData {
        self.inputs_written();
        self.d.as_ptr()
    }

    /// The component layout of `sig`, derived from the engine's own state sizes.
    pub fn layout(&self, sig: u32) -> Result<Layout, NativeError> {
        let info = engine();
        let mut segments = Vec::new();
        let mut offset = 0usize;
        for bit in 0..32 {
            let mask = 1u32 << bit;
            if sig & mask == 0 {
                continue;
            }
            let len = self.state_size(mask)?;
            let name = info
                .component_name(mask)
                .map(str::to_owned)
                .unwrap_or_else(|| format!("bit{bit}"));
            segments.push(Segment {
                name,
                mask,
                offset,
                len,
            });
            offset += len;
        }
        let size = self.state_size(sig)?;
        // The plan of the signature the endpoint images and restores with, made with the
        // configuration rather than by its first step.
        let _ = self.plan(sig);
        if size != offset {
            return Err(NativeError::Failed(format!(
                "mj_stateSize({sig}) = {size} but its components add up to {offset}"
            )));
        }
        let cursors = match segments.iter().find(|s| s.name == "history") {
            Some(history) => self.history_cursors(history)?,
            None => Vec::new(),
        };
        let mut offsets = [None; fields::FIELD_COUNT];
        for s in &segments {
            if let Some(f) = fields::Field::from_name(&s.name) {
                offsets[f.index()] = Some(s.offset);
            }
        }
        Ok(Layout {
            sig,
            size,
            segments,
            cursors,
            fields: offsets,
        })
    }

    /// The cursor of every HISTORY ring buffer, placed in the state vector. Each buffer is
    /// `[user, cursor, times(nsample), values(nsample*dim)]` at its address in the component.
    fn history_cursors(&self, history: &Segment) -> Result<Vec<Cursor>, NativeError> {
        // SAFETY: valid model; a NULL buffer with cap 0 only counts.
        let count = unsafe { mjb_shim_history_buffers(self.m.as_ptr(), std::ptr::null_mut(), 0) };
        let mut raw = vec![ShimHistoryBuffer::default(); count.max(0) as usize];
        // SAFETY: raw holds `count` elements.
        unsafe { mjb_shim_history_buffers(self.m.as_ptr(), raw.as_mut_ptr(), count) };
        let mut cursors = Vec::with_capacity(raw.len());
        for b in raw {
            let owner = format!(
                "{} {}",
                if b.kind == 0 { "actuator" } else { "sensor" },
                b.id
            );
            let bad = |what: &str| {
                NativeError::Failed(format!(
                    "history buffer of {owner}: {what} (adr {}, nsample {}, dim {})",
                    b.adr, b.nsample, b.dim
                ))
            };
            let nsample = u32::try_from(b.nsample).map_err(|_| bad("bad nsample"))?;
            let len = 2 + b.nsample * (b.dim + 1);
            if b.adr < 0 || nsample == 0 || b.dim < 1 || b.adr + len > history.len as i64 {
                return Err(bad("outside the HISTORY component"));
            }
            cursors.push(Cursor {
                index: history.offset + b.adr as usize + 1,
                nsample,
                owner,
            });
        }
        cursors.sort_by_key(|c| c.index);
        Ok(cursors)
    }

    pub fn state_size(&self, sig: u32) -> Result<usize, NativeError> {
        if let Some(&(_, n)) = self.state_sizes.borrow().iter().find(|(s, _)| *s == sig) {
            return Ok(n);
        }
        let mut msg = msg_buf();
        let mut n: c_int = 0;
        // SAFETY: valid model; out-pointer and buffer.
        let code = unsafe { mjb_shim_state_size(self.m.as_ptr(), sig, &mut n, msg.as_mut_ptr()) };
        status(code, &msg)?;
        let n = usize::try_from(n)
            .map_err(|_| NativeError::Failed(format!("negative state size {n}")))?;
        self.state_sizes.borrow_mut().push((sig, n));
        Ok(n)
    }

    /// The state vector of `sig`, exactly as `mj_getState` writes it. Where the pair's plan
    /// for `sig` was proven ([`StatePlan`]), the components are copied straight from the
    /// data (no guarded call: plain copies cannot raise); else `mj_getState` runs, guarded.
    pub fn get_state(&self, sig: u32, out: &mut [f64]) -> Result<(), NativeError> {
        #[cfg(feature = "fault-injection")]
        self.faults.before_state_read()?;
        if let Some(plan) = self.plan(sig) {
            assert_eq!(out.len(), plan.size, "state buffer length");
            plan.copy_into(out);
            #[cfg(debug_assertions)]
            {
                // Test builds check every copy against the engine's own getter (into a
                // buffer made with the plan: the step path allocates nothing).
                let mut engine = plan.check.borrow_mut();
                self.engine_get_state(self.d.as_ptr(), sig, &mut engine)?;
                assert!(
                    engine
                        .iter()
                        .zip(out.iter())
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "the state plan of signature {sig} disagrees with mj_getState"
                );
            }
            return Ok(());
        }
        let want = self.state_size(sig)?;
        assert_eq!(out.len(), want, "state buffer length");
        self.engine_get_state(self.d.as_ptr(), sig, out)
    }

    /// The pre-step image of `sig`, kept by the pair, where its plan for `sig` was proven:
    /// the components copied in as few stretches as the data's layout allows (see `Span`),
    /// for [`Mujoco::unpack_image`] to turn into the state vector when a rollback needs it.
    /// The inputs are copied only when something wrote the data since the last capture
    /// (`image_inputs`). `false` without a plan (the caller uses [`Mujoco::get_state`]).
    pub fn capture_image(&mut self, sig: u32) -> bool {
        let mut image = std::mem::take(&mut self.image);
        let captured = self.capture_into(sig, &mut image);
        self.image = image;
        captured
    }

    fn capture_into(&self, sig: u32, image: &mut Vec<u64>) -> bool {
        let Some(plan) = self.plan(sig) else {
            return false;
        };
        let inputs = !self.image_inputs.get() || image.len() != plan.span.words;
        image.resize(plan.span.words, 0);
        plan.span.capture(&plan.pieces, image, inputs);
        self.image_inputs.set(true);
        #[cfg(debug_assertions)]
        {
            // Test builds check every image against the engine's own getter.
            let mut engine = plan.check.borrow_mut();
            if self
                .engine_get_state(self.d.as_ptr(), sig, &mut engine)
                .is_ok()
            {
                assert!(
                    plan.span.holds(&plan.pieces, image, &engine),
                    "the pre-step image of signature {sig} disagrees with mj_getState"
                );
            }
        }
        true
    }

    /// The state vector of `sig` (`mj_getState`'s layout, `out` of its size) of the image
    /// [`Mujoco::capture_image`] took last; `false` without a plan or an image.
    pub fn unpack_image(&self, sig: u32, out: &mut [f64]) -> bool {
        match self.plan(sig) {
            Some(plan) if self.image.len() == plan.span.words && out.len() == plan.size => {
                plan.span.unpack(&plan.pieces, &self.image, out);
                true
            }
            _ => false,
        }
    }

    /// Whether the state vector of `sig` equals `want` bit for bit, compared in place where
    /// the pair's plan for `sig` was proven (no readback buffer: a many-body state is hundreds
    /// of KiB, and writing then reading a copy of it doubled the readback's memory traffic);
    /// `None` where there is no plan (the caller reads back through [`Mujoco::get_state`]).
    /// The verdict is exactly that of comparing `get_state`'s vector with `want`: the plan
    /// is `mj_getState`'s layout, proven bit for bit ([`StatePlan::prove`]).
    pub fn state_matches(&self, sig: u32, want: &[f64]) -> Option<bool> {
        let plan = self.plan(sig)?;
        let same = want.len() == plan.size && plan.matches(want);
        #[cfg(debug_assertions)]
        {
            // Test builds check the verdict against the engine's own getter.
            let mut engine = plan.check.borrow_mut();
            if self
                .engine_get_state(self.d.as_ptr(), sig, &mut engine)
                .is_ok()
            {
                let by_engine = engine.len() == want.len()
                    && engine
                        .iter()
                        .zip(want)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                assert_eq!(
                    same, by_engine,
                    "the state plan of signature {sig} compares unlike mj_getState"
                );
            }
        }
        Some(same)
    }

    /// Guarded `mj_getState` of `d` (this pair's data or a data of its model).
    fn engine_get_state(
        &self,
        d: *mut MjData,
        sig: u32,
        out: &mut [f64],
    ) -> Result<(), NativeError> {
        let mut msg = Msg::new();
        // SAFETY: `d` is a live data of this model; out holds mj_stateSize(m, sig) doubles
        // (checked by the callers).
        let code =
            unsafe { mjb_shim_get_state(self.m.as_ptr(), d, out.as_mut_ptr(), sig, msg.ptr()) };
        msg.status(code)
    }

    /// The proven plan of `sig`: made and proven for the first signature asked (the one the
    /// endpoint images and restores with, asked when its layout is made); any other
    /// signature is served by `mj_getState`.
    fn plan(&self, sig: u32) -> Option<&StatePlan> {
        let (s, p) = self.plan.get_or_init(|| (sig, StatePlan::prove(self, sig)));
        if *s == sig {
            p.as_ref()
        } else {
            None
        }
    }

    /// Where each component of `sig` is in `d`; None when a component with values has no
    /// known source.
    fn pieces(&self, d: *mut MjData, sig: u32) -> Result<Option<StatePlan>, NativeError> {
        let mut pieces = Vec::new();
        for bit in 0..32 {
            let mask = 1u32 << bit;
            if sig & mask == 0 {
                continue;
            }
            let len = self.state_size(mask)?;
            if len == 0 {
                continue;
            }
            let mut ptr = std::ptr::null_mut();
            // SAFETY: a live data; the shim only reads its field pointers.
            let kind = unsafe { mjb_shim_state_source(d, mask, &mut ptr) };
            let byte = match kind {
                1 => false,
                2 => true,
                _ => return Ok(None),
            };
            if ptr.is_null() {
                return Ok(None);
            }
            pieces.push(Piece {
                src: ptr.cast_const().cast(),
                len,
                byte,
                input: mask & engine().sig_user != 0,
            });
        }
        let size = self.state_size(sig)?;
        let span = Span::new(&pieces, data_buffer(d));
        Ok(Some(StatePlan {
            size,
            pieces,
            span,
            #[cfg(debug_assertions)]
            check: std::cell::RefCell::new(vec![0.0; size]),
        }))
    }

    pub fn set_state(&mut self, sig: u32, state: &[f64]) -> Result<(), NativeError> {
        let want = self.state_size(sig)?;
        assert_eq!(state.len(), want, "state buffer length");
        #[cfg(feature = "fault-injection")]
        let corrupted = self.faults.corrupt_state(state);
        #[cfg(feature = "fault-injection")]
        let state = corrupted.as_deref().unwrap_or(state);
        self.inputs_written();
        let mut msg = Msg::new();
        // SAFETY: state holds exactly mj_stateSize(m, sig) doubles.
        let code = unsafe {
            mjb_shim_set_state(
                self.m.as_ptr(),
                self.d.as_ptr(),
                state.as_ptr(),
                sig,
                msg.ptr(),
            )
        };
        msg.status(code)?;
        self.after_write()
    }

    /// Something is about to write the data other than a clean step: the next pre-step
    /// image copies the inputs again.
    fn inputs_written(&self) {
        self.image_inputs.set(false);
    }

    /// After a state write that did apply: an armed setter fault fires here.
    fn after_write(&mut self) -> Result<(), NativeError> {
        #[cfg(feature = "fault-injection")]
        self.faults.after_write()?;
        Ok(())
    }

    /// One `mj_step`; what it counted of MuJoCo's auto-resets (the reset-warning counters
    /// are zeroed before the step, so they count this step alone).
    pub fn step(&mut self) -> Result<Warnings, NativeError> {
        #[cfg(feature = "fault-injection")]
        self.faults.before_step();
        let mut msg = Msg::new();
        let mut resets = Warnings::default();
        // SAFETY: valid pair owned by self; `msg` holds MSG_CAP bytes.
        let code = unsafe {
            mjb_shim_step_counted(self.m.as_ptr(), self.d.as_ptr(), msg.ptr(), &mut resets)
        };
        if code != 0 || resets != Warnings::default() {
            // An error may have stopped the step anywhere, and MuJoCo's auto-reset
            // (`mj_resetData` on a bad position, velocity or acceleration) zeroes the inputs.
            self.inputs_written();
        }
        msg.status(code)?;
        #[cfg(feature = "fault-injection")]
        self.faults.after_step()?;
        #[cfg(feature = "fault-injection")]
        self.perturb_after_step()?;
        Ok(resets)
    }

    /// `mj_resetData`: brings data back to a consistent state after an interrupted call.
    pub fn reset(&mut self) -> Result<(), NativeError> {
        self.inputs_written();
        let mut msg = msg_buf();
        // SAFETY: valid pair owned by self.
        let code = unsafe { mjb_shim_reset(self.m.as_ptr(), self.d.as_ptr(), msg.as_mut_ptr()) };
        status(code, &msg)
    }

    fn fields(&self) -> ShimFields {
        // SAFETY: valid data.
        unsafe { shim_fields(self.d.as_ptr()) }
    }

    /// Copy the public fields out.
    pub fn public(&self) -> Public {
        let mut p = Public::default();
        self.public_into(&mut p);
        p
    }

    /// Copy the public fields into `out`, reusing its buffers (no allocation once they have
    /// the model's sizes).
    pub fn public_into(&self, out: &mut Public) {
        let f = self.fields();
        let d = &self.dims;
        // SAFETY: mjData arrays have the model's dimensions; a zero length needs no pointer.
        let copy = |dst: &mut Vec<f64>, p: *mut f64, n: i64| {
            dst.clear();
            if n > 0 && !p.is_null() {
                dst.extend_from_slice(unsafe { std::slice::from_raw_parts(p, n as usize) });
            }
        };
        out.time = unsafe { *f.time };
        copy(&mut out.qpos, f.qpos, d.nq);
        copy(&mut out.qvel, f.qvel, d.nv);
        copy(&mut out.act, f.act, d.na);
        copy(&mut out.ctrl, f.ctrl, d.nu);
    }

    /// Write the public fields (the caller checked the lengths against the dimensions).
    pub fn write_public(&mut self, p: &Public) -> Result<(), NativeError> {
        self.inputs_written();
        #[cfg(feature = "fault-injection")]
        let time = self.faults.corrupt_time(p.time);
        #[cfg(not(feature = "fault-injection"))]
        let time = p.time;
        let f = self.fields();
        let d = self.dims;
        let put = |dst: *mut f64, src: &[f64], n: i64| {
            assert_eq!(src.len() as i64, n.max(0), "public field length");
            if n > 0 {
                // SAFETY: dst has n elements (model dimension), src has n.
                unsafe { std::slice::from_raw_parts_mut(dst, n as usize) }.copy_from_slice(src);
            }
        };
        // SAFETY: time is a field of live data.
        unsafe { *f.time = time };
        put(f.qpos, &p.qpos, d.nq);
        put(f.qvel, &p.qvel, d.nv);
        put(f.act, &p.act, d.na);
        put(f.ctrl, &p.ctrl, d.nu);
        self.after_write()
    }

    /// `mjData.time`.
    pub fn time(&self) -> f64 {
        self.table.time()
    }

    /// Write `ctrl` (the caller checked the length and finiteness).
    pub fn write_ctrl(&mut self, ctrl: &[f64]) {
        self.inputs_written();
        let f = self.fields();
        let n = self.dims.nu.max(0) as usize;
        assert_eq!(ctrl.len(), n, "ctrl length");
        if n > 0 {
            // SAFETY: ctrl has nu elements.
            unsafe { std::slice::from_raw_parts_mut(f.ctrl, n) }.copy_from_slice(ctrl);
        }
    }

    /// Zero the counters of the warnings an auto-reset raises (they are not part of any
    /// state the bridge serves), so the next [`warnings`](Self::warnings) counts only what
    /// happened since.
    pub fn clear_reset_warnings(&mut self) {
        // SAFETY: valid data owned by self.
        unsafe { mjb_shim_clear_reset_warnings(self.d.as_ptr()) };
    }

    pub fn warnings(&self) -> Warnings {
        let mut w = Warnings::default();
        // SAFETY: valid data.
        unsafe { mjb_shim_warnings_of(self.d.as_ptr(), &mut w) };
        w
    }
}

/// Plugin loads through the bridge, one at a time.
static PLUGIN_LOADS: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

/// Guarded `mj_loadPluginLibrary`: how many plugins the library registered.
pub fn load_plugin_library(path: &CStr) -> Result<usize, NativeError> {
    let _one = PLUGIN_LOADS.lock();
    let mut msg = msg_buf();
    let mut n: c_int = 0;
    // SAFETY: a C string and an out-pointer; the shim guards the call.
    let code = unsafe { mjb_shim_plugin_load(path.as_ptr(), &mut n, msg.as_mut_ptr()) };
    status(code, &msg)?;
    Ok(n.max(0) as usize)
}

/// Guarded `mj_loadAllPluginLibraries`: (libraries that registered plugins, plugins).
/// Plugin loads through the bridge run one at a time, so each counts what it registered
/// (MuJoCo's count is process-wide; a host registering plugins itself meanwhile is counted).
pub fn load_plugin_dir(dir: &CStr) -> Result<(usize, usize), NativeError> {
    let _one = PLUGIN_LOADS.lock();
    let mut msg = msg_buf();
    let (mut libs, mut n): (c_int, c_int) = (0, 0);
    // SAFETY: as above.
    let code =
        unsafe { mjb_shim_plugin_load_dir(dir.as_ptr(), &mut libs, &mut n, msg.as_mut_ptr()) };
    status(code, &msg)?;
    Ok((libs.max(0) as usize, n.max(0) as usize))
}

/// Where MuJoCo's warnings raised inside the bridge's guarded calls go (see the shim).
pub fn set_log_sink(sink: unsafe extern "C" fn(c_int, *const c_char)) {
    // SAFETY: a plain atomic store of a function pointer in the shim; routing is installed so
    // that warnings reach it.
    unsafe {
        mjb_shim_set_log_sink(Some(sink));
        mjb_shim_install_error_handler();
    }
}

#[cfg(test)]
mod tests {
    use super::{Part, Piece, Span, SPAN_GAP};

    /// A buffer standing for mjData's, and pieces in it as a state plan finds them: in state
    /// order, not address order, with padding, a byte component and one outside the buffer.
    #[test]
    fn a_span_copies_neighbours_as_one_and_unpacks_the_state_vector() {
        let mut buffer: Vec<u64> = (0..400u64).map(|i| 1000 + i).collect();
        let outside = [7.5f64];
        let bytes = [0u8, 3, 0];
        let base = buffer.as_mut_ptr();
        let words = |at: usize, len: usize| Piece {
            src: unsafe { base.add(at) }.cast_const().cast(),
            len,
            byte: false,
            input: false,
        };
        let pieces = [
            Piece {
                src: outside.as_ptr().cast(),
                len: 1,
                byte: false,
                input: false,
            },
            words(8, 5), // padding to 16 after it
            words(0, 7), // before the previous one in the buffer
            Piece {
                src: bytes.as_ptr(),
                len: 3,
                byte: true,
                input: false,
            },
            words(16, 4),                    // joins: one stretch of 0..20
            words(20 + SPAN_GAP / 8 + 1, 2), // one word too far: a stretch of its own
            words(398, 2),                   // the buffer's last words, far again
        ];
        let span = Span::new(&pieces, (base as usize, 400 * 8));
        let stretches: Vec<(usize, usize)> = span
            .moved
            .runs
            .iter()
            .map(|r| ((r.src as usize - base as usize) / 8, r.words))
            .collect();
        // The outside value alone (wherever the allocator put it), 0..20 as one, and the
        // two far pieces each alone.
        assert_eq!(span.moved.runs.len(), 4, "{stretches:?}");
        for s in [(0, 20), (20 + SPAN_GAP / 8 + 1, 2), (398, 2)] {
            assert!(stretches.contains(&s), "{s:?} in {stretches:?}");
        }
        let want: Vec<f64> = [
            &[7.5][..],
            &(8..13)
                .map(|i| f64::from_bits(1000 + i))
                .collect::<Vec<_>>(),
            &(0..7).map(|i| f64::from_bits(1000 + i)).collect::<Vec<_>>(),
            &[0.0, 3.0, 0.0],
            &(16..20)
                .map(|i| f64::from_bits(1000 + i))
                .collect::<Vec<_>>(),
            &(0..2)
                .map(|i| f64::from_bits(1000 + 20 + SPAN_GAP as u64 / 8 + 1 + i))
                .collect::<Vec<_>>(),
            &[f64::from_bits(1398), f64::from_bits(1399)],
        ]
        .concat();
        let mut image = vec![0; span.words];
        span.capture(&pieces, &mut image, true);
        let mut got = vec![0.0; want.len()];
        span.unpack(&pieces, &image, &mut got);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want));
        // A stretch that starts in the buffer ends in it (the last piece ends at its end).
        let (start, end) = (base as usize, base as usize + 400 * 8);
        for r in &span.moved.runs {
            let from = r.src as usize;
            assert!(!(start..end).contains(&from) || from + 8 * r.words <= end);
        }
    }

    /// The host's inputs are a part of their own, copied only when the capture asks for them:
    /// a stretch of the moved part may carry an input along (it lies between two moved
    /// components), but an input is only ever taken from its own part's place in the image.
    #[test]
    fn a_capture_without_inputs_keeps_the_inputs_of_the_last_one() {
        let mut buffer: Vec<u64> = (0..64u64).collect();
        let mut bytes = [1u8, 0];
        let base = buffer.as_mut_ptr();
        let words = |at: usize, len: usize, input: bool| Piece {
            src: unsafe { base.add(at) }.cast_const().cast(),
            len,
            byte: false,
            input,
        };
        let pieces = [
            words(0, 4, false),
            words(4, 4, true), // between two moved components
            words(8, 4, false),
            Piece {
                src: bytes.as_ptr(),
                len: 2,
                byte: true,
                input: true,
            },
            words(12, 4, true),
        ];
        let span = Span::new(&pieces, (base as usize, 64 * 8));
        let at = |p: &Part| {
            p.runs
                .iter()
                .map(|r| ((r.src as usize - base as usize) / 8, r.words))
                .collect::<Vec<_>>()
        };
        assert_eq!(at(&span.moved), [(0, 12)]);
        assert_eq!(at(&span.inputs), [(4, 12)]);
        assert_eq!((span.moved.bytes.len(), span.inputs.bytes.len()), (0, 1));
        let state = |buffer: &[u64], bytes: &[u8]| -> Vec<u64> {
            let w = |r: std::ops::Range<usize>| buffer[r].to_vec();
            let b = bytes.iter().map(|&b| f64::from(b).to_bits()).collect();
            [w(0..4), w(4..8), w(8..12), b, w(12..16)].concat()
        };
        let unpacked = |image: &[u64]| {
            let mut out = vec![0.0; 18];
            span.unpack(&pieces, image, &mut out);
            out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        };
        let mut image = vec![0; span.words];
        span.capture(&pieces, &mut image, true);
        let first = state(&buffer, &bytes);
        assert_eq!(unpacked(&image), first);
        // Every value changes; a capture without inputs takes only the moved ones.
        for v in buffer.iter_mut() {
            *v += 100;
        }
        bytes = [0, 1];
        span.capture(&pieces, &mut image, false);
        let now = state(&buffer, &bytes);
        let want: Vec<u64> = (0..18)
            .map(|i| {
                if (4..8).contains(&i) || i >= 12 {
                    first[i]
                } else {
                    now[i]
                }
            })
            .collect();
        assert_eq!(unpacked(&image), want);
        span.capture(&pieces, &mut image, true);
        assert_eq!(unpacked(&image), now);
    }

    #[test]
    fn every_word_copy_copies_exactly_its_words() {
        let src: Vec<u64> = (0..2_100u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        #[allow(clippy::type_complexity)]
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut copies: Vec<(&str, unsafe fn(*const u64, *mut u64, usize))> =
            vec![("copy_words", super::copy_words)];
        #[cfg(target_arch = "x86_64")]
        {
            copies.push(("sse2", super::copy_words_sse2));
            copies.push(("string", super::copy_words_string));
            if std::arch::is_x86_feature_detected!("avx") {
                copies.push(("avx", super::copy_words_avx));
            }
        }
        for (name, copy) in copies {
            let min = if name == "avx" { 16 } else { 0 };
            // Every length to 260, and lengths around where `copy_words` turns to the string
            // copy.
            let around = super::STRING_COPY_WORDS - 3..=super::STRING_COPY_WORDS + 3;
            for n in (min..=260).chain(around).chain([2_000]) {
                for at in [0, 1, 3] {
                    let mut dst = vec![u64::MAX; 2_100];
                    // SAFETY: both hold at + n + 1 words.
                    unsafe { copy(src[at..].as_ptr(), dst[at..].as_mut_ptr(), n) };
                    assert_eq!(dst[at..at + n], src[at..at + n], "{name} n={n} at={at}");
                    assert!(
                        dst[..at].iter().all(|w| *w == u64::MAX),
                        "{name} n={n}: before"
                    );
                    assert!(
                        dst[at + n..].iter().all(|w| *w == u64::MAX),
                        "{name} n={n}: after"
                    );
                }
            }
        }
    }

    use super::*;

    /// Every component of the suite's models is placed by the shim and proven: the pre-step
    /// image and the readbacks are plain copies on every engine the suite builds against
    /// (a model the engine cannot load, such as `history_plastic.xml` before 4.0, is skipped
    /// by name, not by failure to prove).
    #[test]
    fn the_state_plan_is_proven_for_every_component_of_the_suite_models() {
        let e = engine();
        if !e.supports_integration() {
            return;
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models");
        let mut proven = Vec::new();
        for name in [
            "contact_act.xml",
            "host.xml",
            "many_bodies.xml",
            "pendulum.xml",
            "history.xml",
            "history_plastic.xml",
        ] {
            let Ok(mut mj) = Mujoco::load(&ModelSource::XmlPath(
                dir.join(name).to_string_lossy().into_owned(),
            )) else {
                assert!(name.starts_with("history"), "{name} does not load");
                continue;
            };
            let sig = e.sig_integration;
            assert!(mj.plan(sig).is_some(), "{name}: no proven state plan");
            // The copy is the engine's vector after steps with inputs set.
            for _ in 0..20 {
                mj.step().unwrap();
            }
            let n = mj.state_size(sig).unwrap();
            let (mut copy, mut engine) = (vec![0.0; n], vec![0.0; n]);
            mj.get_state(sig, &mut copy).unwrap();
            mj.engine_get_state(mj.d.as_ptr(), sig, &mut engine)
                .unwrap();
            assert!(
                copy.iter()
                    .zip(&engine)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{name}: the copy differs from mj_getState"
            );
            proven.push(name);
        }
        assert!(proven.len() >= 4, "proven: {proven:?}");
    }
}
