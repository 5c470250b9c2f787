// MjBridge.cs: the C# binding of the mjbridge C ABI (include/mjbridge.h), for Unity (Mono and
// IL2CPP), Mono and .NET hosts. One file, no dependency beyond the base class library: drop it
// into a Unity project's Assets/ and the native library into Assets/Plugins/x86_64/.
//
// Conventions (docs/csharp.md says more):
// - Endpoint owns an EndpointHandle (a SafeHandle): Dispose() or the finalizer closes it, and a
//   close while another thread is inside a call waits for that call to return. Using a disposed
//   Endpoint throws ObjectDisposedException.
// - Mutations (Step, SetCtrl, WorldWrite, Restore, ReplaceModel, Input, CtrlStep, Apply,
//   Stepper.Step) return a Result: busy, stop latched, rolled back and refused documents are
//   ordinary answers of a control loop, not exceptions. Result.EnsureOk() turns a refusal into
//   an MjbException when that is wanted. Each takes an optional `Expect? expect`: the tick
//   and/or model configuration the caller saw; when the endpoint has moved on the call is
//   refused (Reason.Precondition) and nothing is done.
// - Documents (World, Snapshot, Checkpoint) come back as a Document: the text, and the tick
//   and configuration it was read at; it converts to string implicitly.
// - Restore points (Capture, RestorePointFromJson, Apply) restore a captured state without
//   JSON; a RestorePoint is immutable and may be applied to its endpoint from any thread.
// - Opening an endpoint and reading documents throw MjbException when refused; it carries the
//   outcome, reason, JSON pointer and message of mjb_last_error.
// - Strings cross as UTF-8 both ways; library-owned strings are copied and freed in `finally`.
// - Enums, constants, struct layouts and the [DllImport]s are generated from the header into
//   the <generated> region below (tests/bindings_gen.rs); a test compares them with a C program.
// - Threads: any method from any thread; Stop, Safety, ConfirmPaused and SafetyReset never wait
//   for the native lock.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;

namespace MjBridge
{
    // <generated> by tests/bindings_gen.rs from include/mjbridge.h; do not edit: regenerate with `MJB_BLESS=1 cargo test --test bindings_gen`
    /// <summary>
    /// What happened to the endpoint's native state. Values are part of the ABI: never renumber.
    /// </summary>
    public enum Outcome : int
    {
        /// <summary>The call took full effect.</summary>
        Ok = 0,
        /// <summary>
        /// Refused before any effect: native state, tick, stop history and fence untouched.
        /// </summary>
        Rejected = 1,
        /// <summary>
        /// A native effect failed (or a stop halted a rewind) and the prior state was restored and
        /// proven by readback.
        /// </summary>
        RolledBack = 2,
        /// <summary>
        /// The effect could not be proven either way; the endpoint is now fenced.
        /// </summary>
        Unknown = 3,
        /// <summary>
        /// The endpoint was fenced before this call; mutation or acknowledgement refused.
        /// </summary>
        Fenced = 4,
        /// <summary>NULL where not allowed, bad UTF-8, or a closed or foreign handle.</summary>
        InvalidArgument = 5,
        /// <summary>A Rust panic was caught at the boundary; the endpoint is now fenced.</summary>
        Panic = 6,
    }

    /// <summary>
    /// The cause inside an outcome. Values are part of the ABI: never renumber; a retired value
    /// stays reserved here as a comment.
    /// </summary>
    public enum Reason : int
    {
        /// <summary>Only with `MJB_OK` when there is nothing to add.</summary>
        None = 0,
        /// <summary>The bytes are not one JSON object (syntax, depth, bad escape).</summary>
        MalformedJson = 1,
        /// <summary>The document is over 1 MiB, or a result would be.</summary>
        TooLarge = 2,
        /// <summary>More than 32,768 native values.</summary>
        TooManyValues = 3,
        /// <summary>
        /// An object member the document's schema does not have (also a config naming both
        /// `xml_path` and `xml`, or a frame field that does not exist); the pointer names it.
        /// </summary>
        UnknownField = 4,
        /// <summary>A required member is absent; the pointer names where it belongs.</summary>
        MissingField = 5,
        /// <summary>
        /// A member appears twice in one object (or a frame field is listed twice); the pointer
        /// names the second.
        /// </summary>
        DuplicateField = 6,
        /// <summary>
        /// A value of the wrong JSON type (a string where a number goes, an object where the schema
        /// has none); the pointer names it.
        /// </summary>
        WrongType = 7,
        /// <summary>A fraction, an exponent or a boolean where an integer goes.</summary>
        NotAnInteger = 8,
        /// <summary>A number that does not fit a finite double (`1e400`).</summary>
        NotFinite = 9,
        /// <summary>An integer outside its field's range.</summary>
        OutOfRange = 10,
        /// <summary>
        /// The document's profile is not the endpoint's, or the engine cannot serve the profile.
        /// </summary>
        Profile = 11,
        /// <summary>
        /// Engine string or number differs from the running engine, or the linked library is not
        /// the release the bridge was compiled against.
        /// </summary>
        Engine = 12,
        /// <summary>A descriptor dimension or the timestep differs from the live model.</summary>
        Descriptor = 13,
        /// <summary>The model configuration counter differs (the model was replaced).</summary>
        Configuration = 14,
        /// <summary>
        /// A checkpoint's `signature` is not the running engine's `mjSTATE_INTEGRATION` value: it
        /// was taken by an engine whose integration state has other components.
        /// </summary>
        Signature = 15,
        /// <summary>
        /// `size` differs from the native state size, or `values` does not hold `size` numbers.
        /// </summary>
        Size = 16,
        /// <summary>An equality activation that is not exactly 0 or 1.</summary>
        EqActiveDomain = 17,
        /// <summary>`time`/`qpos`/`qvel`/`ctrl` differ from their segment of `values`.</summary>
        PublicFieldMismatch = 18,
        /// <summary>
        /// A checkpoint's `seed` is not the endpoint's configured `seed` (config `"seed"`).
        /// </summary>
        Seed = 19,
        /// <summary>
        /// A world write names a served field that is not an input (`native_checkpoint`, `tick`,
        /// `time`, `qpos`, `qvel`, ...), or a typed input names a field that is not an input.
        /// </summary>
        ReadOnlyField = 20,
        /// <summary>The deadline passed before the native lock was free.</summary>
        Busy = 21,
        /// <summary>
        /// A stop is latched. With `MJB_OK`: a step call halted at a step boundary (the report's
        /// `tick_after` shows the steps done). With `MJB_REJECTED`: a step call admitted after the
        /// latch took no step. With `MJB_ROLLED_BACK`: a stop latched during a rewind halted its
        /// replay, and the state before the rewind was put back and proven. `mjb_safety_reset`
        /// clears the latch.
        /// </summary>
        StopLatched = 22,
        /// <summary>
        /// Native work is still in flight on the endpoint, so `mjb_confirm_paused` or
        /// `mjb_safety_reset` cannot acknowledge the pause yet (retry when it has finished). Also
        /// `mjb_set_log_callback` called from inside the log callback.
        /// </summary>
        UnresolvedNativeWork = 23,
        /// <summary>
        /// `mjb_confirm_paused` or `mjb_safety_reset` on an endpoint with no stop latched.
        /// </summary>
        NotStopped = 24,
        /// <summary>
        /// A restore's native state write failed (the guarded setter raised a MuJoCo error or
        /// reported a failure); with `MJB_ROLLED_BACK` the prior state was put back and proven.
        /// </summary>
        SetterFailed = 25,
        /// <summary>
        /// A restore's state setter returned a status that is neither completion nor an engine
        /// error, so what it did is unknown: `MJB_UNKNOWN`, the endpoint is fenced.
        /// </summary>
        SetterUnexpectedCompletion = 26,
        /// <summary>
        /// A restored state did not read back bit for bit equal to the document; with
        /// `MJB_ROLLED_BACK` the prior state was put back and proven.
        /// </summary>
        VerificationMismatch = 27,
        /// <summary>
        /// After a failed step or restore, putting the prior state back failed or did not read back
        /// bit for bit: `MJB_UNKNOWN`, the endpoint is fenced.
        /// </summary>
        RollbackUnproven = 28,
        /// <summary>MuJoCo raised an error (`mju_error`) inside a guarded call.</summary>
        EngineError = 29,
        /// <summary>The handle was closed.</summary>
        Closed = 30,
        /// <summary>A required pointer was NULL.</summary>
        NullArgument = 31,
        /// <summary>Input bytes are not UTF-8.</summary>
        InvalidUtf8 = 32,
        /// <summary>The handle was never issued by this library.</summary>
        ForeignHandle = 33,
        /// <summary>
        /// MuJoCo could not load or compile the model; its message is in `mjb_last_error`.
        /// </summary>
        ModelLoad = 34,
        /// <summary>An array's length does not match the model's dimension.</summary>
        Dimension = 35,
        /// <summary>
        /// The engine reset the simulation after a NaN/Inf (its warning counters moved).
        /// </summary>
        EngineReset = 36,
        /// <summary>A Rust panic was caught.</summary>
        Panic = 37,
        /// <summary>
        /// An integer-coded value of the native state outside its native domain (a HISTORY
        /// ring-buffer cursor that is not an integer in its buffer's range).
        /// </summary>
        StateDomain = 38,
        /// <summary>
        /// The tick would pass its maximum (u64); refused before any engine step.
        /// </summary>
        TickOverflow = 39,
        /// <summary>
        /// A world document's `state_hash` is not the hash of its `world` (edited or corrupted).
        /// </summary>
        StateHash = 40,
        /// <summary>No object of that kind has that name.</summary>
        UnknownName = 41,
        /// <summary>
        /// The running engine lacks what the call needs (plugins before MuJoCo 2.3.1, equality
        /// activation in mjData before 3.0).
        /// </summary>
        Unsupported = 42,
        /// <summary>
        /// MuJoCo could not load a plugin library; its message is in `mjb_last_error`.
        /// </summary>
        PluginLoad = 43,
        /// <summary>
        /// The field is not in the endpoint's frame selection (config `"frame"`).
        /// </summary>
        NotInFrame = 44,
        /// <summary>
        /// The call's precondition (`mjb_expect`: the tick, the model configuration or the last
        /// frame's publication number the caller saw) no longer holds: another call moved the
        /// endpoint on first. Nothing was done.
        /// </summary>
        Precondition = 45,
        /// <summary>
        /// A world document's `model_fingerprint` is not the endpoint's model: another model, even
        /// with the same dimensions (or the same file compiled by another engine build).
        /// </summary>
        ModelFingerprint = 46,
        /// <summary>The restore point was captured on (or read for) another endpoint.</summary>
        OtherEndpoint = 47,
        /// <summary>
        /// A rewind's replay did not reach the state recorded at its tick (a state hash that
        /// differs): rolled back to the state before the rewind and proven, never reported done.
        /// </summary>
        ReplayDiverged = 48,
    }

    /// <summary>
    /// An mjData array a frame can carry (and, for inputs, a typed write can set). Values are part
    /// of the ABI: never renumber; append only.
    /// </summary>
    public enum Field : int
    {
        /// <summary>`qpos` (nq): joint positions, the generalized coordinates.</summary>
        Qpos = 0,
        /// <summary>`qvel` (nv): joint velocities, one per degree of freedom.</summary>
        Qvel = 1,
        /// <summary>`act` (na): actuator activations (the state of stateful actuators).</summary>
        Act = 2,
        /// <summary>`ctrl` (nu): actuator controls. Input: per actuator, width 1.</summary>
        Ctrl = 3,
        /// <summary>
        /// `qacc` (nv): accelerations. Computed by a step; stale after a restore until the next
        /// step.
        /// </summary>
        Qacc = 4,
        /// <summary>
        /// `sensordata` (nsensordata): every sensor's values. Computed by a step; stale after a
        /// restore.
        /// </summary>
        Sensordata = 5,
        /// <summary>`xpos` (3 × nbody): body positions.</summary>
        Xpos = 6,
        /// <summary>`xquat` (4 × nbody): body orientations.</summary>
        Xquat = 7,
        /// <summary>`xmat` (9 × nbody): body orientations as row-major matrices.</summary>
        Xmat = 8,
        /// <summary>`site_xpos` (3 × nsite): site positions.</summary>
        SiteXpos = 9,
        /// <summary>`site_xmat` (9 × nsite): site orientations as row-major matrices.</summary>
        SiteXmat = 10,
        /// <summary>`geom_xpos` (3 × ngeom): geom positions.</summary>
        GeomXpos = 11,
        /// <summary>`geom_xmat` (9 × ngeom): geom orientations as row-major matrices.</summary>
        GeomXmat = 12,
        /// <summary>
        /// `mocap_pos` (3 × nmocap): mocap body positions. Input: per mocap body, width 3.
        /// </summary>
        MocapPos = 13,
        /// <summary>
        /// `mocap_quat` (4 × nmocap): mocap body orientations. Input: per mocap body, width 4.
        /// </summary>
        MocapQuat = 14,
        /// <summary>
        /// `qfrc_applied` (nv): generalized forces applied by the host. Input: per degree of
        /// freedom, width 1.
        /// </summary>
        QfrcApplied = 15,
        /// <summary>
        /// `xfrc_applied` (6 × nbody): Cartesian force then torque applied by the host to each
        /// body, in world coordinates. Input: per body, width 6.
        /// </summary>
        XfrcApplied = 16,
        /// <summary>
        /// `eq_active` (neq): whether each equality constraint is active, as 0.0 / 1.0 (MuJoCo
        /// &gt;= 3.0). Input: per equality, exactly 0 or 1.
        /// </summary>
        EqActive = 17,
        /// <summary>
        /// `actuator_force` (nu): the force each actuator produced. Computed by a step; stale after
        /// a restore.
        /// </summary>
        ActuatorForce = 18,
        /// <summary>
        /// `userdata` (nuserdata): the model's user data array, which the engine never touches.
        /// </summary>
        Userdata = 19,
    }

    /// <summary>
    /// Object kinds of the name API. Values are part of the ABI: never renumber; append only.
    /// </summary>
    public enum ObjectKind : int
    {
        /// <summary>
        /// Bodies, by body id (0 is the world body; the index into `xpos`, `xfrc_applied`, ...).
        /// </summary>
        Body = 0,
        /// <summary>
        /// Joints, by joint id (`mjb_joint_slice` maps one to its `qpos` and dof entries).
        /// </summary>
        Joint = 1,
        /// <summary>Geoms, by geom id (the index into `geom_xpos`/`geom_xmat`).</summary>
        Geom = 2,
        /// <summary>Sites, by site id (the index into `site_xpos`/`site_xmat`).</summary>
        Site = 3,
        /// <summary>
        /// Actuators, by actuator id (the index into `ctrl` and `actuator_force`).
        /// </summary>
        Actuator = 4,
        /// <summary>
        /// Sensors, by sensor id (`mjb_sensor_slice` maps one to its `sensordata` entries).
        /// </summary>
        Sensor = 5,
        /// <summary>Equality constraints, by equality id (the index into `eq_active`).</summary>
        Equality = 6,
        /// <summary>
        /// Mocap bodies, by mocap index (the index into `mocap_pos`/`mocap_quat`); the name is the
        /// body's.
        /// </summary>
        Mocap = 7,
    }

    /// <summary>
    /// Why a frame was published. Values are part of the ABI: never renumber; append only.
    /// </summary>
    public enum FrameCause : int
    {
        /// <summary>The endpoint was opened (or adopted a pair).</summary>
        Open = 0,
        /// <summary>An engine step.</summary>
        Step = 1,
        /// <summary>A restore.</summary>
        Restore = 2,
        /// <summary>
        /// An input write (ctrl, applied forces, mocap pose, equality activation).
        /// </summary>
        Input = 3,
        /// <summary>The model was replaced.</summary>
        Replace = 4,
        /// <summary>A failed step or restore was rolled back to the prior state.</summary>
        Rollback = 5,
    }

    /// <summary>
    /// Severity of a log message (the same values as MuJoCo's `mjtLogLevel`). Values are part of
    /// the ABI: never renumber.
    /// </summary>
    public enum LogLevel : int
    {
        /// <summary>
        /// MuJoCo's debug messages raised inside a bridge call (engines with leveled logging); the
        /// bridge itself sends none.
        /// </summary>
        Debug = 0,
        /// <summary>
        /// A refused call (`MJB_REJECTED` other than busy or stop latched) with its reason and
        /// pointer, and MuJoCo's info messages raised inside a bridge call.
        /// </summary>
        Info = 1,
        /// <summary>
        /// A rollback, an engine reset after NaN/Inf, poses a frame could not recompute, and
        /// MuJoCo's warnings raised inside a bridge call.
        /// </summary>
        Warning = 2,
        /// <summary>
        /// An endpoint was fenced (`MJB_UNKNOWN`) or a panic was caught (`MJB_PANIC`).
        /// </summary>
        Error = 3,
    }

    /// <summary>The header's #define constants.</summary>
    public static class Constants
    {
        /// <summary>
        /// The version of the bridge this header belongs to, as text. Compare it with mjb_version()
        /// at run time to see which library a host actually loaded.
        /// </summary>
        public const string Version = "0.4.0";
        /// <summary>The major part of #MJB_VERSION.</summary>
        public const int VersionMajor = 0;
        /// <summary>
        /// The minor part of #MJB_VERSION. Within one major version the ABI only grows: a host
        /// built against this header runs with a library of this minor version or a later one.
        /// </summary>
        public const int VersionMinor = 4;
        /// <summary>The patch part of #MJB_VERSION.</summary>
        public const int VersionPatch = 0;
        /// <summary>`timeout_ms` value that waits for the native lock without a deadline.</summary>
        public const uint WaitForever = 4294967295;
        /// <summary>At most this many values in a checkpoint's `values`.</summary>
        public const int MaxCheckpointValues = 32768;
        /// <summary>Input documents over this many bytes are refused before parsing.</summary>
        public const int MaxDocumentBytes = 1048576;
        /// <summary>
        /// The largest `window_ticks` of an endpoint's `"history"` (a step's record is one hash: 8
        /// bytes a tick).
        /// </summary>
        public const int MaxWindowTicks = 1000000;
        /// <summary>
        /// The most keyframes a history window may need (`ceil(window_ticks / keyframe_every)`):
        /// what bounds the memory of the full states kept.
        /// </summary>
        public const int MaxWindowKeyframes = 4096;
        /// <summary>`mjb_expect.flags`: check the tick.</summary>
        public const uint ExpectTick = 1;
        /// <summary>`mjb_expect.flags`: check the model configuration.</summary>
        public const uint ExpectConfiguration = 2;
        /// <summary>
        /// `mjb_expect.flags`: check the last frame's publication number (nothing changed at all).
        /// </summary>
        public const uint ExpectFrame = 4;
    }

    /// <summary>
    /// The result of a mutation. Written whenever the pointer is not NULL, also on refusal.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 40)]
    public partial struct Report
    {
        /// <summary>Same value the function returns.</summary>
        [FieldOffset(0)] public Outcome Outcome;
        /// <summary>
        /// An `mjb_reason`; `MJB_REASON_NONE` only with `MJB_OK` and nothing to add.
        /// </summary>
        [FieldOffset(4)] public Reason Reason;
        /// <summary>
        /// The endpoint's tick when the call was admitted (or last known, if it was not).
        /// </summary>
        [FieldOffset(8)] public ulong TickBefore;
        /// <summary>
        /// The tick when the call returned: after a step, `tick_before` + steps done.
        /// </summary>
        [FieldOffset(16)] public ulong TickAfter;
        /// <summary>Engine auto-resets (NaN/Inf) during a step; never silent.</summary>
        [FieldOffset(24)] public ulong EngineResets;
        /// <summary>
        /// This call's place in the endpoint's admission order (1, 2, ...): calls from several
        /// threads took effect in increasing `sequence`. 0 when the call was not admitted.
        /// </summary>
        [FieldOffset(32)] public ulong Sequence;
    }

    /// <summary>The lock-free safety state of an endpoint.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 48)]
    public partial struct SafetyState
    {
        /// <summary>A stop is latched.</summary>
        [FieldOffset(0)] [MarshalAs(UnmanagedType.U1)] public bool Stopped;
        /// <summary>Stopped and no native work in flight.</summary>
        [FieldOffset(1)] [MarshalAs(UnmanagedType.U1)] public bool Confirmed;
        /// <summary>Stops ever latched on this endpoint (never rewound).</summary>
        [FieldOffset(8)] public ulong StopCount;
        /// <summary>
        /// The tick at which the first stop was latched (0 while `stop_count` is 0).
        /// </summary>
        [FieldOffset(16)] public ulong FirstStopTick;
        /// <summary>
        /// The tick at which the most recent stop was latched (0 while `stop_count` is 0).
        /// </summary>
        [FieldOffset(24)] public ulong LastStopTick;
        /// <summary>Native mutations in flight right now.</summary>
        [FieldOffset(32)] public ulong InFlight;
        /// <summary>The endpoint is fenced (permanent).</summary>
        [FieldOffset(40)] [MarshalAs(UnmanagedType.U1)] public bool Fenced;
        /// <summary>The `mjb_reason` that fenced it, `MJB_REASON_NONE` when not fenced.</summary>
        [FieldOffset(44)] public Reason FenceReason;
    }

    /// <summary>
    /// A precondition of a mutation (the `_if` functions): where the caller expects the endpoint to
    /// be when the call is admitted. A member is checked when its flag is set; when one does not
    /// hold, the call is `MJB_REJECTED` with `MJB_REASON_PRECONDITION` and nothing is done.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 32)]
    public partial struct Expect
    {
        /// <summary>
        /// `MJB_EXPECT_TICK`, `MJB_EXPECT_CONFIGURATION`, `MJB_EXPECT_FRAME`, or any of them.
        /// </summary>
        [FieldOffset(0)] public uint Flags;
        /// <summary>
        /// The tick the caller saw (a frame's, a read's, a report's `tick_after`).
        /// </summary>
        [FieldOffset(8)] public ulong Tick;
        /// <summary>The model configuration the caller saw (`mjb_dims`, a frame, a read).</summary>
        [FieldOffset(16)] public ulong Configuration;
        /// <summary>
        /// The publication number of the last frame the caller saw (`mjb_frame_info.frame`, a
        /// read's `mjb_read_info.frame`). Every change of the native state publishes a frame (a
        /// step, a restore, an input write, a replacement, a rollback), so this catches what a tick
        /// cannot: a restore to the same tick, an input write, a replacement back at tick 0.
        /// </summary>
        [FieldOffset(24)] public ulong Frame;
    }

    /// <summary>Where the endpoint was when a document was read (the `_info` reads).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 24)]
    public partial struct ReadInfo
    {
        /// <summary>The endpoint's tick the document describes.</summary>
        [FieldOffset(0)] public ulong Tick;
        /// <summary>The model configuration it was read under.</summary>
        [FieldOffset(8)] public ulong Configuration;
        /// <summary>
        /// The publication number of the endpoint's last frame when it was read (for
        /// `MJB_EXPECT_FRAME`); 0 for a restore point, which is not a reading of the endpoint.
        /// </summary>
        [FieldOffset(16)] public ulong Frame;
    }

    /// <summary>What an endpoint's flight recorder holds (`mjb_history_info`, v0.4).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 32)]
    public partial struct HistoryState
    {
        /// <summary>The oldest tick `mjb_rewind` reaches (the first keyframe's).</summary>
        [FieldOffset(0)] public ulong OldestTick;
        /// <summary>
        /// The newest tick `mjb_rewind` reaches (after a rewind back, the branch it left is kept
        /// until the next mutation).
        /// </summary>
        [FieldOffset(8)] public ulong NewestTick;
        /// <summary>
        /// Keyframes held (complete states: one every `keyframe_every` ticks, one per restore).
        /// </summary>
        [FieldOffset(16)] public ulong Keyframes;
        /// <summary>
        /// Bytes the recorder holds (its buffers' capacities: keyframes, records, hashes).
        /// </summary>
        [FieldOffset(24)] public ulong Bytes;
    }

    /// <summary>
    /// Model dimensions and the configuration counter, as `mjb_dims` reports them.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 120)]
    public partial struct ModelDims
    {
        /// <summary>Generalized coordinates (`mjModel.nq`): the length of `qpos`.</summary>
        [FieldOffset(0)] public long Nq;
        /// <summary>
        /// Degrees of freedom (`nv`): the length of `qvel`, `qacc` and `qfrc_applied`.
        /// </summary>
        [FieldOffset(8)] public long Nv;
        /// <summary>Actuator activations (`na`): the length of `act`.</summary>
        [FieldOffset(16)] public long Na;
        /// <summary>Actuators (`nu`): the length of `ctrl` and `actuator_force`.</summary>
        [FieldOffset(24)] public long Nu;
        /// <summary>
        /// Bodies (`nbody`), the world body included: `xpos` holds 3 × `nbody` values.
        /// </summary>
        [FieldOffset(32)] public long Nbody;
        /// <summary>Joints (`njnt`): ids for `mjb_joint_slice` and `MJB_OBJ_JOINT`.</summary>
        [FieldOffset(40)] public long Njnt;
        /// <summary>Geoms (`ngeom`): `geom_xpos` holds 3 × `ngeom` values.</summary>
        [FieldOffset(48)] public long Ngeom;
        /// <summary>Sites (`nsite`): `site_xpos` holds 3 × `nsite` values.</summary>
        [FieldOffset(56)] public long Nsite;
        /// <summary>Sensors (`nsensor`): ids for `mjb_sensor_slice` and `MJB_OBJ_SENSOR`.</summary>
        [FieldOffset(64)] public long Nsensor;
        /// <summary>Sensor values (`nsensordata`): the length of `sensordata`.</summary>
        [FieldOffset(72)] public long Nsensordata;
        /// <summary>Mocap bodies (`nmocap`): `mocap_pos` holds 3 × `nmocap` values.</summary>
        [FieldOffset(80)] public long Nmocap;
        /// <summary>Equality constraints (`neq`): the length of `eq_active`.</summary>
        [FieldOffset(88)] public long Neq;
        /// <summary>User data values (`nuserdata`): the length of `userdata`.</summary>
        [FieldOffset(96)] public long Nuserdata;
        /// <summary>
        /// The timestep in seconds (`mjModel.opt.timestep`): the simulated time one step advances.
        /// </summary>
        [FieldOffset(104)] public double Timestep;
        /// <summary>
        /// The endpoint's model configuration (bumped by `mjb_endpoint_replace_model`).
        /// </summary>
        [FieldOffset(112)] public ulong Configuration;
    }

    /// <summary>
    /// Where a joint's values sit in `qpos` and in `qvel` (and every nv-sized field).
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 32)]
    public partial struct JointAdr
    {
        /// <summary>Index of the joint's first value in `qpos` (`mjModel.jnt_qposadr`).</summary>
        [FieldOffset(0)] public ulong QposAdr;
        /// <summary>
        /// How many `qpos` values it has: 7 for a free joint, 4 for a ball, 1 for a slide or hinge.
        /// </summary>
        [FieldOffset(8)] public ulong QposLen;
        /// <summary>
        /// Index of its first degree of freedom in `qvel` and every nv-sized field
        /// (`mjModel.jnt_dofadr`).
        /// </summary>
        [FieldOffset(16)] public ulong DofAdr;
        /// <summary>
        /// How many degrees of freedom it has: 6 for a free joint, 3 for a ball, 1 for a slide or
        /// hinge.
        /// </summary>
        [FieldOffset(24)] public ulong DofLen;
    }

    /// <summary>What a frame read returns beside the values.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 64)]
    public partial struct FrameInfo
    {
        /// <summary>The endpoint's tick when the frame was published.</summary>
        [FieldOffset(0)] public ulong Tick;
        /// <summary>`mjData.time` of the frame.</summary>
        [FieldOffset(8)] public double Time;
        /// <summary>The model configuration the frame belongs to.</summary>
        [FieldOffset(16)] public ulong Configuration;
        /// <summary>
        /// Publication number: 1 for the endpoint's first frame, +1 per frame, never reset.
        /// </summary>
        [FieldOffset(24)] public ulong Frame;
        /// <summary>Why it was published (`mjb_frame_cause`).</summary>
        [FieldOffset(32)] public FrameCause Cause;
        /// <summary>
        /// The published fields: bit `1 &lt;&lt; f` for each `mjb_field` f of the selection.
        /// </summary>
        [FieldOffset(40)] public ulong Fields;
        /// <summary>
        /// Fields not recomputed for this frame's state (bit `1 &lt;&lt; f`): after a restore (or
        /// open, replacement, rollback) what only a step computes (qacc, sensordata,
        /// actuator_force) is stale until the next step; poses are recomputed by kinematics on a
        /// scratch copy.
        /// </summary>
        [FieldOffset(48)] public ulong Stale;
        /// <summary>
        /// Times this read started over because the writer lapped it (diagnostics).
        /// </summary>
        [FieldOffset(56)] public ulong Retries;
    }

    /// <summary>
    /// One field of a multi-field frame read: the caller's buffer of `cap` doubles; `written`
    /// receives the number copied.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 32)]
    public partial struct FrameRequest
    {
        /// <summary>
        /// An `mjb_field` in the endpoint's frame selection (else `MJB_REASON_NOT_IN_FRAME`).
        /// </summary>
        [FieldOffset(0)] public Field Field;
        /// <summary>
        /// Where the field's values go: `cap` doubles, caller-owned, written during the call only.
        /// NULL only with `cap` 0.
        /// </summary>
        [FieldOffset(8)] public IntPtr Buf;
        /// <summary>
        /// The capacity of `buf` in doubles; less than the field's length (`mjb_frame_field_len`)
        /// refuses the whole read (`MJB_REASON_DIMENSION`).
        /// </summary>
        [FieldOffset(16)] public UIntPtr Cap;
        /// <summary>
        /// Zeroed on entry; on `MJB_OK` the number of doubles copied (the field's length).
        /// </summary>
        [FieldOffset(24)] public UIntPtr Written;
    }

    /// <summary>
    /// One typed input of `mjb_write_step`: `n` doubles for `field` (an input field), for the whole
    /// field (`id` = -1) or one object (`id` ≥ 0: actuator for ctrl, degree of freedom for
    /// qfrc_applied, body for xfrc_applied, mocap index for mocap_pos/quat, equality for
    /// eq_active).
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 24)]
    public partial struct Input
    {
        /// <summary>
        /// The `mjb_field` to write: `MJB_FIELD_CTRL`, `QFRC_APPLIED`, `XFRC_APPLIED`, `MOCAP_POS`,
        /// `MOCAP_QUAT` or `EQ_ACTIVE` (any other is `MJB_REASON_READ_ONLY_FIELD`).
        /// </summary>
        [FieldOffset(0)] public Field Field;
        /// <summary>-1 for the whole field, or the id (≥ 0) of the one object to write.</summary>
        [FieldOffset(4)] public int Id;
        /// <summary>`n` doubles, borrowed for the call; NULL only with `n` 0.</summary>
        [FieldOffset(8)] public IntPtr Values;
        /// <summary>
        /// How many values: the field's length for `id` -1, else the object's width (1 for ctrl,
        /// qfrc_applied and eq_active, 6 for xfrc_applied, 3 for mocap_pos, 4 for mocap_quat).
        /// </summary>
        [FieldOffset(16)] public UIntPtr N;
    }

    /// <summary>
    /// The host's log callback: `user_data` as given to `mjb_set_log_callback`, the level, and a
    /// NUL-terminated UTF-8 message valid during the call only.
    /// </summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void LogCallback(IntPtr userData, int level, IntPtr message);

    /// <summary>The C functions, one declaration per export.</summary>
    public static partial class Native
    {
        /// <summary>Open an endpoint that loads and owns a MuJoCo model/data pair.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_endpoint_open(byte[] configJson, UIntPtr len, out EndpointHandle @out);

        /// <summary>Open an endpoint that takes ownership of a host's MuJoCo pair.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_endpoint_adopt(IntPtr model, IntPtr data, byte[] configJson, UIntPtr len, out EndpointHandle @out);

        /// <summary>Close an endpoint handle.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_endpoint_free(IntPtr ep);

        /// <summary>
        /// Deprecated: use mjb_endpoint_step, the same call (MuJoCo 4.0's mjbatch.h declares an
        /// mjb_step of its own).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_step(EndpointHandle ep, uint nstep, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_step` under a name of its own. MuJoCo 4.0's batch API (`mjbatch.h`) exports a
        /// function called `mjb_step` too: a host that links MuJoCo directly and puts it before the
        /// bridge on its link line gets MuJoCo's, and a translation unit cannot include both
        /// `mjbatch.h` and this header's `mjb_step` (define `MJBRIDGE_NO_MJB_STEP` before including
        /// this header to leave it out). `mjb_endpoint_step` is the same call with no such name:
        /// same arguments, effects, outcomes and locking as `mjb_step`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_endpoint_step(EndpointHandle ep, uint nstep, uint timeoutMs, out Report report);

        /// <summary>
        /// Write the controls: `ctrl` holds `n` doubles, borrowed for the call; `n` must equal the
        /// model's `nu` and every value must be finite (else `MJB_REJECTED`, nothing written).
        /// `ctrl` may be NULL only when `n` is 0. `report`: nullable. Takes the native lock. `ep`:
        /// a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_set_ctrl(EndpointHandle ep, double[] ctrl, UIntPtr n, uint timeoutMs, out Report report);

        /// <summary>
        /// Apply a partial world document `{"world": {...}}` (borrowed for the call) carrying any
        /// of the inputs, whole arrays: `ctrl`, `qfrc_applied`, `xfrc_applied`, `mocap_pos`,
        /// `mocap_quat`, `eq_active` (0 or 1; MuJoCo &gt;= 3.0). Publishes a frame.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_world_write(EndpointHandle ep, byte[] json, UIntPtr len, uint timeoutMs, out Report report);

        /// <summary>Read the world document (resource read).</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_world_read(EndpointHandle ep, uint timeoutMs, out IntPtr outString);

        /// <summary>Deprecated: use mjb_world_read, the same call.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_snapshot(EndpointHandle ep, uint timeoutMs, out IntPtr outString);

        /// <summary>
        /// Read the checkpoint document alone (the profile's format; see docs/contract.md,
        /// "Checkpoint documents").
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_checkpoint_read(EndpointHandle ep, uint timeoutMs, out IntPtr outString);

        /// <summary>
        /// Replace the owned model/data with a newly loaded one (`{"model": {...}}`, borrowed).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_endpoint_replace_model(EndpointHandle ep, byte[] configJson, UIntPtr len, uint timeoutMs, out Report report);

        /// <summary>
        /// Restore a checkpoint document, or a world document as `mjb_snapshot` / `mjb_world_read`
        /// serve it (borrowed for the call), and its tick.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore(EndpointHandle ep, byte[] json, UIntPtr len, uint timeoutMs, out Report report);

        /// <summary>
        /// Latch a stop, at once, from any thread; never waits for the native lock (also while a
        /// long step holds it) and works on fenced endpoints. `safety_state` (nullable) receives
        /// the state right after latching; `confirmed` is true only when no native work is in
        /// flight. `ep`: a live handle; NULL, closed or foreign handles return
        /// `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_stop(EndpointHandle ep, out SafetyState safetyState);

        /// <summary>
        /// Positive acknowledgement that the simulation is paused: `MJB_OK` only when a stop is
        /// latched, no native work is in flight and the endpoint is not fenced; otherwise
        /// `MJB_REJECTED` (`MJB_REASON_NOT_STOPPED` / `MJB_REASON_UNRESOLVED_NATIVE_WORK`) or
        /// `MJB_FENCED`. Never takes the native lock. `ep`: a live handle; NULL, closed or foreign
        /// handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_confirm_paused(EndpointHandle ep);

        /// <summary>
        /// Clear the stop latch, under the same conditions as `mjb_confirm_paused`. Stop history is
        /// kept. Never takes the native lock. `ep`: a live handle; NULL, closed or foreign handles
        /// return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_safety_reset(EndpointHandle ep);

        /// <summary>
        /// Read the latch, confirmation, stop history, work in flight and fence without the native
        /// lock. `safety_state`: must not be NULL. `ep`: a live handle; NULL, closed or foreign
        /// handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_safety_read(EndpointHandle ep, out SafetyState safetyState);

        /// <summary>
        /// `mjb_step` with a precondition. `expect` (nullable: none; borrowed): the tick, model
        /// configuration and/or last frame number the caller expects at admission; when one does
        /// not hold the call is `MJB_REJECTED` (`MJB_REASON_PRECONDITION`) and no step is taken.
        /// Unknown flag bits are `MJB_INVALID_ARGUMENT`. Everything else as for `mjb_step`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_step_if(EndpointHandle ep, [In] ref Expect expect, uint nstep, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_set_ctrl` with a precondition (`expect` as for `mjb_step_if`; nothing is written
        /// when it does not hold).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_set_ctrl_if(EndpointHandle ep, [In] ref Expect expect, double[] ctrl, UIntPtr n, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_world_write` with a precondition (`expect` as for `mjb_step_if`; the document is
        /// validated first, and nothing is written when the precondition does not hold).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_world_write_if(EndpointHandle ep, [In] ref Expect expect, byte[] json, UIntPtr len, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_endpoint_replace_model` with a precondition (`expect` as for `mjb_step_if`; the
        /// model is compiled first and dropped when the precondition does not hold).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_endpoint_replace_model_if(EndpointHandle ep, [In] ref Expect expect, byte[] configJson, UIntPtr len, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_restore` with a precondition (`expect` as for `mjb_step_if`; the document is
        /// validated first, and nothing is restored when the precondition does not hold).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_if(EndpointHandle ep, [In] ref Expect expect, byte[] json, UIntPtr len, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_checkpoint_read`, and where the endpoint was when it was read: `info` (nullable;
        /// zeroed on entry, filled on `MJB_OK`) receives the tick, the model configuration and the
        /// last frame's publication number, for a mutation conditional on them (`mjb_expect`)
        /// without parsing the document.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_checkpoint_read_info(EndpointHandle ep, uint timeoutMs, out IntPtr outString, out ReadInfo info);

        /// <summary>`mjb_world_read` with `info` as for `mjb_checkpoint_read_info`.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_world_read_info(EndpointHandle ep, uint timeoutMs, out IntPtr outString, out ReadInfo info);

        /// <summary>Deprecated: use mjb_world_read_info, the same call.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_snapshot_info(EndpointHandle ep, uint timeoutMs, out IntPtr outString, out ReadInfo info);

        /// <summary>
        /// Rewind to `tick`: restore the exact state the endpoint had at that tick of its own
        /// timeline (for a past tick, the state that left it, every input write made at it
        /// included; for the newest, the state before the rewind). The nearest keyframe at or
        /// before `tick` is installed, the recorded mutations after it re-applied and the engine
        /// stepped to `tick`; the state reached must have the recorded state hash. A mutation with
        /// the restore's rules: admission (`timeout_ms`), fence (`MJB_FENCED`), admitted while
        /// stopped (the stop history and the latch are kept), the native phase of a restore
        /// (pre-image, guarded setter, bitwise readback) and its outcomes. A replay that does not
        /// reach the recorded state is rolled back to the state before the call and proven
        /// (`MJB_ROLLED_BACK`, `MJB_REASON_REPLAY_DIVERGED`); an engine error in it likewise
        /// (`MJB_REASON_ENGINE_ERROR`), and a stop latched after the call was admitted (any
        /// `mjb_stop`, also on an endpoint stopped before), which halts the replay at the next
        /// engine step (`MJB_REASON_STOP_LATCHED`); the history is then as it was. Until the next
        /// mutation, the ticks after `tick` are kept, so a host can rewind back and forth; the next
        /// mutation starts a new branch there. Refused (`MJB_REJECTED`, `MJB_REASON_OUT_OF_RANGE`,
        /// nothing changed): an endpoint without `"history"`, a tick outside the window (the
        /// message names it; `mjb_history_info` reads it). `report`: nullable. `ep`: a live handle;
        /// NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_rewind(EndpointHandle ep, ulong tick, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_rewind` with a precondition (`expect` as for `mjb_step_if`; nothing is restored
        /// when it does not hold).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_rewind_if(EndpointHandle ep, [In] ref Expect expect, ulong tick, uint timeoutMs, out Report report);

        /// <summary>
        /// What the endpoint's flight recorder holds: the oldest and newest tick `mjb_rewind`
        /// reaches, the keyframes and the bytes, into `info` (must not be NULL; zeroed on entry,
        /// filled on `MJB_OK`), as the last mutation left them. Takes no lock; any thread; works on
        /// a fenced endpoint. Refused (`MJB_REJECTED`, `MJB_REASON_OUT_OF_RANGE`) on an endpoint
        /// without `"history"`. `ep`: a live handle; NULL, closed or foreign handles return
        /// `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_history_info(EndpointHandle ep, out HistoryState info);

        /// <summary>
        /// Export ticks `from_tick..=to_tick` of the history window as a recording document
        /// (`mjbridge_recording_v1`, strict JSON; see docs/contract.md, "History and rewind"): the
        /// checkpoint of the last keyframe at or before `from_tick` (the recording starts there,
        /// exactly: no replay is needed to write it), every input write and discontinuity (restore,
        /// restore-point apply, with its checkpoint) after it up to `to_tick` with its tick, the
        /// state hash (XXH3-64) of every tick from the keyframe's to `to_tick` and each keyframe's,
        /// the engine, the model fingerprint, the descriptor and the profile; `mjbridge replay`
        /// re-executes and verifies it. `to_tick` = `UINT64_MAX`: the newest tick (the whole
        /// window, its oldest tick decided under the lock: `mjb_history_export_window`). A read
        /// under the native lock (`timeout_ms` as for `mjb_checkpoint_read`): it changes nothing
        /// and works on a fenced or stopped endpoint (after a stop, steps are refused, so the
        /// history ends at the stop). On `MJB_OK`, `*out_string` is a new string the caller frees
        /// with `mjb_string_free` (ownership as for `mjb_checkpoint_read`). Refused
        /// (`MJB_REJECTED`, `MJB_REASON_OUT_OF_RANGE`, nothing changed; the message names the
        /// window): an endpoint without `"history"`, `from_tick &gt; to_tick`, a tick outside the
        /// window. `ep`: a live handle; NULL, closed or foreign handles return
        /// `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_history_export(EndpointHandle ep, ulong fromTick, ulong toTick, uint timeoutMs, out IntPtr outString);

        /// <summary>
        /// Export the whole history window as a recording document, as `mjb_history_export` does
        /// for the ticks from the window's oldest to its newest, both read under the native lock
        /// the export holds: a thread that steps meanwhile cannot slide the window between them
        /// (unlike `mjb_history_info` then `mjb_history_export(oldest_tick, UINT64_MAX)`, whose
        /// oldest tick a step in between can drop: refused, `MJB_REASON_OUT_OF_RANGE`). A read
        /// under the native lock (`timeout_ms` as for `mjb_checkpoint_read`): it changes nothing
        /// and works on a fenced or stopped endpoint; any thread. On `MJB_OK`, `*out_string` (must
        /// not be NULL; set to NULL on entry) is a new string the caller frees with
        /// `mjb_string_free`. Refused (`MJB_REJECTED`, `MJB_REASON_OUT_OF_RANGE`, nothing changed):
        /// an endpoint without `"history"`, or one that has recorded nothing yet (no mutation since
        /// it was opened, its model replaced or its history started again). `ep`: a live handle;
        /// NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_history_export_window(EndpointHandle ep, uint timeoutMs, out IntPtr outString);

        /// <summary>
        /// The model's dimensions, timestep and configuration counter. `out`: must not be NULL;
        /// zeroed on entry, filled on `MJB_OK`. Takes no lock (the facts are kept beside the frames
        /// and replaced with the model). Any thread. `ep`: a live handle; NULL, closed or foreign
        /// handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_dims(EndpointHandle ep, out ModelDims @out);

        /// <summary>
        /// `mj_name2id` for an `mjb_object_kind` kind. `name`: NUL-terminated, borrowed; must not
        /// be NULL. `id`: must not be NULL; set to -1 on entry and to the object's id on `MJB_OK`
        /// (for `MJB_OBJ_MOCAP` the mocap index, the index into mocap_pos/mocap_quat). An unknown
        /// name is `MJB_REJECTED` (`MJB_REASON_UNKNOWN_NAME`); an unknown kind
        /// `MJB_INVALID_ARGUMENT`. Takes no lock (names are read once per model). Any thread. `ep`:
        /// a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_name_to_id(EndpointHandle ep, int kind, byte[] name, out int id);

        /// <summary>
        /// `mj_id2name` for an `mjb_object_kind` kind, copied into `buf` (NUL-terminated) when
        /// `cap` is at least the size `needed` (nullable) receives, including the NUL; else
        /// `MJB_REJECTED` (`MJB_REASON_TOO_LARGE`) and nothing copied. An unnamed object gives the
        /// empty string. An id out of range is `MJB_REJECTED` (`MJB_REASON_OUT_OF_RANGE`). Takes no
        /// lock. Any thread. `ep`: a live handle; NULL, closed or foreign handles return
        /// `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_id_to_name(EndpointHandle ep, int kind, int id, [Out] byte[] buf, UIntPtr cap, out UIntPtr needed);

        /// <summary>
        /// The model's fingerprint, `"sha256:&lt;hex&gt;"` of MuJoCo's own serialization of the
        /// compiled model (`mj_saveModel`), as the world document's `model_fingerprint` carries it:
        /// two models with the same dimensions but another parameter differ. Copied into `buf`
        /// (NUL-terminated) when `cap` is at least the size `needed` (nullable) receives, including
        /// the NUL (72 bytes); else `MJB_REJECTED` (`MJB_REASON_TOO_LARGE`) and nothing copied.
        /// Takes no lock (computed at open and at model replacement). Any thread. `ep`: a live
        /// handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_model_fingerprint(EndpointHandle ep, [Out] byte[] buf, UIntPtr cap, out UIntPtr needed);

        /// <summary>
        /// Where sensor `sensor`'s values sit in `sensordata`: `adr` and `dim` (both must not be
        /// NULL; zeroed on entry, filled on `MJB_OK`). An id out of range is `MJB_REJECTED`
        /// (`MJB_REASON_OUT_OF_RANGE`). Takes no lock. Any thread. `ep`: a live handle; NULL,
        /// closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_sensor_slice(EndpointHandle ep, int sensor, out UIntPtr adr, out UIntPtr dim);

        /// <summary>
        /// Where joint `joint`'s values sit in `qpos` and in the nv-sized fields. `out`: must not
        /// be NULL; zeroed on entry, filled on `MJB_OK`. An id out of range is `MJB_REJECTED`
        /// (`MJB_REASON_OUT_OF_RANGE`). Takes no lock. Any thread. `ep`: a live handle; NULL,
        /// closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_joint_slice(EndpointHandle ep, int joint, out JointAdr @out);

        /// <summary>
        /// The name of an `mjb_field` (`"qpos"`, ..., as in the config's `"frame"` list and the
        /// world document), or NULL for an unknown value. Static string: do not free.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern IntPtr mjb_field_name(int field);

        /// <summary>
        /// How many doubles a frame carries for `field` (`len`: must not be NULL; zeroed on entry).
        /// A field outside the endpoint's frame selection is `MJB_REJECTED`
        /// (`MJB_REASON_NOT_IN_FRAME`). Takes no lock. Any thread. `ep`: a live handle; NULL,
        /// closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_frame_field_len(EndpointHandle ep, int field, out UIntPtr len);

        /// <summary>
        /// Copy one field of the latest complete frame into `buf` (`cap` doubles, caller-owned;
        /// NULL only with `cap` 0). `written` (nullable) receives the number of doubles copied,
        /// `info` (nullable) the frame's tick, time, cause, published and stale fields. Both are
        /// zeroed on entry and filled on `MJB_OK`. Never takes the native lock and never waits for
        /// a step in progress: it copies the last frame published (a seqlock over three slots; a
        /// read that the writer laps starts over on the newer frame). Works on fenced endpoints
        /// (the last frame stays readable). Refusals: `MJB_REASON_NOT_IN_FRAME` (the field is not
        /// in the config's `"frame"` selection), `MJB_REASON_DIMENSION` (`cap` is smaller than the
        /// field). Any thread, concurrently. `ep`: a live handle; NULL, closed or foreign handles
        /// return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_frame_read(EndpointHandle ep, int field, [Out] double[] buf, UIntPtr cap, out UIntPtr written, out FrameInfo info);

        /// <summary>
        /// Copy several fields of one frame in one read: every request's values belong to the same
        /// tick. `requests`: `n` requests, caller-owned (NULL only with `n` 0; `n` 0 reads the info
        /// alone; at most 64 requests); each request's `written` is zeroed on entry and set on
        /// `MJB_OK`. A request whose field is not selected or whose `cap` is too small refuses the
        /// whole read (JSON pointer `/requests/&lt;k&gt;/field` or `/cap`), nothing copied. `info`:
        /// nullable. Locking and threads as for `mjb_frame_read`. `ep`: a live handle; NULL, closed
        /// or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_frame_read_many(EndpointHandle ep, [In, Out] FrameRequest[] requests, UIntPtr n, out FrameInfo info);

        /// <summary>
        /// Write one typed input as a world mutation: `n` doubles (borrowed for the call; NULL only
        /// with `n` 0) for `field` (`MJB_FIELD_CTRL`, `QFRC_APPLIED`, `XFRC_APPLIED`, `MOCAP_POS`,
        /// `MOCAP_QUAT`, `EQ_ACTIVE`), for the whole field (`id` = -1; `n` = its length) or one
        /// object (`id` ≥ 0; `n` = the object's width: 1, 1, 6, 3, 4, 1). Refused before anything
        /// is written (`MJB_REJECTED`, pointer in `mjb_last_error`): another field
        /// (`READ_ONLY_FIELD`), an id out of range (`OUT_OF_RANGE`), a wrong `n` (`DIMENSION`), a
        /// value that is not finite (`NOT_FINITE`), an equality activation that is not exactly 0 or
        /// 1 (`EQ_ACTIVE_DOMAIN`), `eq_active` before MuJoCo 3.0 (`UNSUPPORTED`). Publishes a
        /// frame. `report`: nullable. Takes the native lock (admission bounded by `timeout_ms`).
        /// `ep`: a live handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_input_write(EndpointHandle ep, int field, int id, double[] values, UIntPtr n, uint timeoutMs, out Report report);

        /// <summary>
        /// The hot loop in one admission: write `ninputs` typed inputs (each as for
        /// `mjb_input_write`; all checked before any is written, pointers `/inputs/&lt;k&gt;/...`),
        /// then `mj_step` up to `nstep` times exactly as `mjb_step` does (stop latch between steps,
        /// rollback on an engine error, frames published). An engine error in the first step rolls
        /// the inputs back with it (`MJB_ROLLED_BACK`: the state before the call, proven); in a
        /// later step the inputs and the steps before it stand. A pre-step state that cannot be
        /// read refuses the call with nothing written (`MJB_REJECTED`, `MJB_REASON_ENGINE_ERROR`).
        /// `inputs` may be NULL only with `ninputs` 0 (then this is `mjb_step`). A stop latched
        /// before the call refuses it with nothing written; a stop latched after the inputs were
        /// written halts before the first step (`MJB_OK`, `MJB_REASON_STOP_LATCHED`). `report`:
        /// nullable. Takes the native lock once. `ep`: a live handle; NULL, closed or foreign
        /// handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_write_step(EndpointHandle ep, [In] Input[] inputs, UIntPtr ninputs, uint nstep, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_input_write` with a precondition (`expect` as for `mjb_step_if`; nothing is written
        /// when it does not hold).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_input_write_if(EndpointHandle ep, [In] ref Expect expect, int field, int id, double[] values, UIntPtr n, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_write_step` with a precondition (`expect` as for `mjb_step_if`): the controller's
        /// compare-and-step. Read a frame, choose the inputs for it, and pass its publication
        /// number with `MJB_EXPECT_FRAME`: if another call changed anything meanwhile (a step, a
        /// restore even to the same tick, an input write, a replacement), the call is refused
        /// (`MJB_REASON_PRECONDITION`) with nothing written and no step taken. `MJB_EXPECT_TICK`
        /// alone catches steps but not a restore to the same tick.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_write_step_if(EndpointHandle ep, [In] ref Expect expect, [In] Input[] inputs, UIntPtr ninputs, uint nstep, uint timeoutMs, out Report report);

        /// <summary>
        /// One step of a host loop in one call: write `ninputs` typed inputs and step up to `nstep`
        /// times exactly as `mjb_write_step` does (same checks, refusals, stop latch, rollback,
        /// report), then copy fields of the latest frame into the caller's buffers exactly as
        /// `mjb_frame_read_many` does.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_write_step_read(EndpointHandle ep, [In] Input[] inputs, UIntPtr ninputs, uint nstep, uint timeoutMs, [In, Out] FrameRequest[] requests, UIntPtr nrequests, out FrameInfo info, out Report report);

        /// <summary>
        /// `mjb_write_step_read` with a precondition (`expect` as for `mjb_step_if`): the
        /// controller's compare-and-step in one call. When it does not hold, nothing is written, no
        /// step is taken and no frame is read (`MJB_REJECTED`, `MJB_REASON_PRECONDITION`).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_write_step_read_if(EndpointHandle ep, [In] ref Expect expect, [In] Input[] inputs, UIntPtr ninputs, uint nstep, uint timeoutMs, [In, Out] FrameRequest[] requests, UIntPtr nrequests, out FrameInfo info, out Report report);

        /// <summary>
        /// Load a MuJoCo plugin library (guarded `mj_loadPluginLibrary`), so a host that never
        /// links MuJoCo can open models that need it. `path`: NUL-terminated, borrowed; must not be
        /// NULL. `plugins` (nullable) receives how many plugins it registered (0 when it was loaded
        /// before). Refusals: `MJB_REASON_PLUGIN_LOAD` (not a file, or MuJoCo's message: a library
        /// the loader refuses, a plugin already registered from another file under the same name),
        /// `MJB_REASON_UNSUPPORTED` (MuJoCo before 2.3.1 has no plugin API). Plugins are
        /// process-wide and stay registered. Thread-safe; takes no endpoint lock; plugin loads
        /// through the bridge run one at a time (MuJoCo's errors inside the system loader are
        /// recorded, never jumped out of, so a refusal leaves the loader usable).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_plugin_load(byte[] path, out UIntPtr plugins);

        /// <summary>
        /// Load every plugin library (`*.so`) of a directory (guarded `mj_loadAllPluginLibraries`).
        /// `dir`: NUL-terminated, borrowed; must not be NULL. `libraries` and `plugins` (nullable)
        /// receive how many libraries registered plugins and how many plugins they registered. A
        /// library that fails to load refuses the call (`MJB_REASON_PLUGIN_LOAD`, MuJoCo's first
        /// message); what the directory's other libraries registered stays registered.
        /// `MJB_REASON_UNSUPPORTED` before MuJoCo 2.3.1. Thread-safe; takes no endpoint lock; one
        /// at a time with `mjb_plugin_load`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_plugin_load_dir(byte[] dir, out UIntPtr libraries, out UIntPtr plugins);

        /// <summary>
        /// Send MuJoCo's warnings raised inside the bridge's calls and the bridge's notable events
        /// (fence, rollback, engine reset, refused documents) to `callback(user_data, level,
        /// message)` for levels at or above `min_level` (an `mjb_log_level`). NULL `callback`
        /// removes it; then such messages are dropped: nothing is printed and nothing is written to
        /// the working directory (MuJoCo's own `MUJOCO_LOG.TXT` is never written for warnings
        /// inside the bridge's calls). Process-wide. Threads: messages are delivered on the thread
        /// whose call produced them, when that call returns, outside every lock; the callback may
        /// call the bridge (except this function) and must be thread-safe when several threads use
        /// the bridge. `message` is valid during the callback only. When this function returns the
        /// previous callback is not running and will not be called again, so its `user_data` may be
        /// freed. Calling it from inside the callback is refused. Warnings MuJoCo raises outside
        /// the bridge's calls keep going to the host's own handler (`mju_user_warning` or the log
        /// handler).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_set_log_callback(LogCallback callback, IntPtr userData, int minLevel);

        /// <summary>
        /// The bytes of a library-owned string (NUL-terminated UTF-8), valid until it is freed.
        /// NULL, freed or foreign strings give NULL.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern IntPtr mjb_string_data(IntPtr s);

        /// <summary>
        /// The length in bytes of a library-owned string, without its NUL. NULL, freed or foreign
        /// strings give 0.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern UIntPtr mjb_string_len(IntPtr s);

        /// <summary>
        /// Free a library-owned string. NULL is a no-op (`MJB_OK`); a string freed before, or not
        /// made by this library, returns `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_string_free(IntPtr s);

        /// <summary>
        /// Describe this thread's most recent call (every function returning an `mjb_outcome` but
        /// this one), as a JSON object `{"outcome","reason","pointer","message"}` (pointer is an
        /// RFC 6901 JSON pointer or null): its refusal, or the reason an `MJB_OK` came with (a step
        /// halted at a stop, an engine reset), or `{}` after a plain success.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_last_error([Out] byte[] buf, UIntPtr cap, out UIntPtr needed);

        /// <summary>
        /// The name of an outcome value (`"MJB_OK"`, ...), or `"MJB_OUTCOME_UNKNOWN_VALUE"`. Static
        /// string: do not free.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern IntPtr mjb_outcome_name(int outcome);

        /// <summary>
        /// The name of a reason value (`"MJB_REASON_BUSY"`, ...), or `"MJB_REASON_UNKNOWN_VALUE"`.
        /// Static string: do not free.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern IntPtr mjb_reason_name(int reason);

        /// <summary>
        /// The bridge's version (for example `"0.2.0"`, from Cargo.toml). Static string: do not
        /// free.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern IntPtr mjb_version();

        /// <summary>
        /// Which MuJoCo the bridge was built against and which it runs with, and how it was built,
        /// as a JSON object with the members `bridge`, `engine_header_version`,
        /// `engine_runtime_version`, `engine`, `engine_source`, `engine_library`,
        /// `integration_profile`, `engine_origin`, `engine_wheel`, `engine_wheel_sha256`, `target`,
        /// `build_profile`, `install_build` and `fault_injection`. `engine_source` says where
        /// MuJoCo came from (the pinned wheel with its SHA-256, `MUJOCO_DIR`, the
        /// `MUJOCO_INCLUDE_DIR` and `MUJOCO_LIB_DIR` pair, or `pkg-config mujoco`), `engine_origin`
        /// is that kind alone and `engine_library` the file name of the library linked; no value
        /// names a folder of the build machine. `out_string`: must not be NULL; the caller frees
        /// the result with `mjb_string_free`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_build_info(out IntPtr outString);

        /// <summary>
        /// Capture a restore point: under the native lock, the complete state the endpoint's
        /// profile restores (`mujoco_integration_v1`: the `mjSTATE_INTEGRATION` vector;
        /// `mujoco_basic_v1`: time, qpos, qvel, act, ctrl) and the tick, stamped with the endpoint
        /// and its model configuration. No JSON is printed. `out`: must not be NULL; NULL on entry,
        /// on `MJB_OK` a new restore point the caller owns and frees with `mjb_restore_point_free`.
        /// A restore point is immutable: it may be applied (to this endpoint) and read from any
        /// thread, concurrently. Takes the native lock (admission bounded by `timeout_ms`). Works
        /// on fenced endpoints. `ep`: a live handle; NULL, closed or foreign handles return
        /// `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_point_capture(EndpointHandle ep, uint timeoutMs, out RestorePointHandle @out);

        /// <summary>
        /// Restore a restore point: exactly what `mjb_restore` does once a document is validated,
        /// without the document. The same admission (`timeout_ms`), fence (`MJB_FENCED`), stop
        /// rules (admitted while stopped; the stop history and the latch are kept) and outcomes;
        /// then, under the native lock, the restore native phase: pre-image, guarded `mj_setState`,
        /// bitwise readback, tick, a frame; a failed setter or readback rolled back and proven
        /// (`MJB_ROLLED_BACK`) or the endpoint fenced (`MJB_UNKNOWN`). Refused (`MJB_REJECTED`,
        /// nothing changed): a restore point of another endpoint (`MJB_REASON_OTHER_ENDPOINT`) or
        /// of an older model configuration (`MJB_REASON_CONFIGURATION`). `rp`: borrowed; NULL,
        /// freed or foreign handles are `MJB_INVALID_ARGUMENT`. `report`: nullable. `ep`: a live
        /// handle; NULL, closed or foreign handles return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_point_apply(EndpointHandle ep, RestorePointHandle rp, uint timeoutMs, out Report report);

        /// <summary>
        /// `mjb_restore_point_apply` with a precondition (`expect` as for `mjb_step_if`; nothing is
        /// restored when it does not hold).
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_point_apply_if(EndpointHandle ep, [In] ref Expect expect, RestorePointHandle rp, uint timeoutMs, out Report report);

        /// <summary>
        /// The checkpoint document of a restore point: byte for byte what `mjb_checkpoint_read`
        /// returned (or would have returned) at the capture; for one read from JSON, the checkpoint
        /// of the state that document restores. `out_string`: must not be NULL; NULL on entry, on
        /// `MJB_OK` a new string the caller frees with `mjb_string_free`. `rp`: borrowed; NULL,
        /// freed or foreign handles are `MJB_INVALID_ARGUMENT`. Takes no lock. Any thread.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_point_to_json(RestorePointHandle rp, out IntPtr outString);

        /// <summary>
        /// A restore point from a checkpoint or world document (`json`/`len`, borrowed), validated
        /// exactly as `mjb_restore` validates it (same refusals, reasons and JSON pointers),
        /// restoring nothing: load a saved state once, apply it many times. It belongs to this
        /// endpoint and its current model configuration. `out`: must not be NULL; NULL on entry, on
        /// `MJB_OK` a new restore point the caller frees with `mjb_restore_point_free`. Takes no
        /// lock. `ep`: a live handle; NULL, closed or foreign handles return
        /// `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_point_from_json(EndpointHandle ep, byte[] json, UIntPtr len, out RestorePointHandle @out);

        /// <summary>
        /// What a restore point restores: its tick and the model configuration it belongs to, into
        /// `info` (must not be NULL; zeroed on entry, filled on `MJB_OK`). `rp`: borrowed; NULL,
        /// freed or foreign handles are `MJB_INVALID_ARGUMENT`. Takes no lock. Any thread.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_point_info(RestorePointHandle rp, out ReadInfo info);

        /// <summary>
        /// Free a restore point. NULL is a no-op (`MJB_OK`); a restore point freed before, or not
        /// made by this library, is `MJB_INVALID_ARGUMENT` (never undefined behaviour). Freeing
        /// while another thread applies it is safe: that call finishes with it. Any thread.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_restore_point_free(IntPtr rp);

        /// <summary>
        /// Prepare a frame reader: check `n` requests once, exactly as `mjb_frame_read_many` checks
        /// them (the same refusals and JSON pointers, at most 64 requests, nothing made on a
        /// refusal), and keep each one's field, buffer and length. On `MJB_OK` each request's
        /// `written` is the number of doubles every read copies into its buffer. `requests`: read
        /// during the call only (NULL only with `n` 0). The buffers they point to are borrowed for
        /// the reader's whole life: they must stay valid, and be written by nothing else while a
        /// read runs, until `mjb_frame_reader_free`. `out`: must not be NULL; NULL on entry, on
        /// `MJB_OK` a new reader the caller owns and frees with `mjb_frame_reader_free`. A reader
        /// serves the model configuration it was made for: after `mjb_endpoint_replace_model` its
        /// reads are refused (`MJB_REASON_CONFIGURATION`), after `mjb_endpoint_free` too
        /// (`MJB_REASON_CLOSED`); it keeps the frames, not the endpoint, alive. Takes no lock. Any
        /// thread. `ep`: a live handle; NULL, closed or foreign handles return
        /// `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_frame_reader_new(EndpointHandle ep, [In, Out] FrameRequest[] requests, UIntPtr n, out FrameReaderHandle @out);

        /// <summary>
        /// Copy the latest complete frame into the reader's buffers: every request's values of one
        /// tick, as `mjb_frame_read_many` copies them, without checking the requests again. `info`
        /// (nullable) is zeroed on entry and receives the frame's tick, time, cause, published and
        /// stale fields on `MJB_OK`. Never takes the native lock and never waits for a step in
        /// progress; works on fenced endpoints. Refused with the buffers untouched: a model
        /// replaced since the reader was made (`MJB_REJECTED`, `MJB_REASON_CONFIGURATION`), a
        /// closed endpoint (`MJB_INVALID_ARGUMENT`, `MJB_REASON_CLOSED`, also for a reader made
        /// before a replacement: once the endpoint is closed, preparing again cannot help). One
        /// thread at a time per reader (a read writes its buffers); different readers, on any
        /// threads, read concurrently. `reader`: a live reader; NULL, freed or foreign handles
        /// return `MJB_INVALID_ARGUMENT`.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_frame_reader_read(FrameReaderHandle reader, out FrameInfo info);

        /// <summary>
        /// Free a frame reader (its buffers stay the caller's: after this returns the library never
        /// writes them). NULL is a no-op returning `MJB_OK`; a freed or foreign handle returns
        /// `MJB_INVALID_ARGUMENT`. Not while a read of the same reader runs on another thread (one
        /// thread at a time per reader, as for reads). Works after the endpoint was closed.
        /// </summary>
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]
        public static extern Outcome mjb_frame_reader_free(IntPtr reader);
    }
    // </generated>

    /// <summary>
    /// mjb_expect: the precondition of a mutation, where the caller expects the endpoint to be
    /// when the call is admitted (each member checked when its flag is set). Pass it as the
    /// `expect` argument of a mutation; when it does not hold the call is refused
    /// (Reason.Precondition) and nothing is done. A value type: no allocation.
    /// The tick says where the endpoint is, not which state it holds: a restore can land on
    /// the tick seen and an input write keeps it. The frame number changes with every change
    /// of the native state, so At() checks it too, with the tick and the configuration.
    /// </summary>
    public partial struct Expect
    {
        /// <summary>The endpoint must be at this tick.</summary>
        public static Expect AtTick(ulong tick) { return new Expect().WithTick(tick); }

        /// <summary>The endpoint's model must be this configuration.</summary>
        public static Expect AtConfiguration(ulong configuration) { return new Expect().WithConfiguration(configuration); }

        /// <summary>The endpoint's last frame must be this one (nothing changed since).</summary>
        public static Expect AtFrame(ulong frame) { return new Expect().WithFrame(frame); }

        /// <summary>The tick, the configuration and the frame number of a frame the caller read.</summary>
        public static Expect At(FrameInfo seen) { return AtTick(seen.Tick).WithConfiguration(seen.Configuration).WithFrame(seen.Frame); }

        /// <summary>The tick, the configuration and the frame number of a document (a restore
        /// point's frame number, 0, is not checked: frames are numbered from 1).</summary>
        public static Expect At(ReadInfo seen)
        {
            Expect e = AtTick(seen.Tick).WithConfiguration(seen.Configuration);
            return seen.Frame != 0 ? e.WithFrame(seen.Frame) : e;
        }

        public static Expect At(Document seen)
        {
            if (seen == null) throw new ArgumentNullException("seen");
            return At(seen.Info);
        }

        /// <summary>This precondition and the tick.</summary>
        public Expect WithTick(ulong tick)
        {
            Expect e = this;
            e.Flags |= Constants.ExpectTick;
            e.Tick = tick;
            return e;
        }

        /// <summary>This precondition and the configuration.</summary>
        public Expect WithConfiguration(ulong configuration)
        {
            Expect e = this;
            e.Flags |= Constants.ExpectConfiguration;
            e.Configuration = configuration;
            return e;
        }

        /// <summary>This precondition and the last frame's publication number.</summary>
        public Expect WithFrame(ulong frame)
        {
            Expect e = this;
            e.Flags |= Constants.ExpectFrame;
            e.Frame = frame;
            return e;
        }
    }

    /// <summary>An mjb_endpoint*: closed with mjb_endpoint_free when released.</summary>
    public sealed class EndpointHandle : SafeHandle
    {
        public EndpointHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            return Native.mjb_endpoint_free(handle) == Outcome.Ok;
        }
    }

    /// <summary>An mjb_frame_reader*: freed with mjb_frame_reader_free when released.</summary>
    public sealed class FrameReaderHandle : SafeHandle
    {
        public FrameReaderHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            return Native.mjb_frame_reader_free(handle) == Outcome.Ok;
        }
    }

    /// <summary>An mjb_restore_point*: freed with mjb_restore_point_free when released.</summary>
    public sealed class RestorePointHandle : SafeHandle
    {
        public RestorePointHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            return Native.mjb_restore_point_free(handle) == Outcome.Ok;
        }
    }

    /// <summary>
    /// The C functions: one [DllImport] per export, generated from the header in the region
    /// above (tests/bindings_gen.rs; a test checks every export's parameter kinds and resolves
    /// each one with Marshal.Prelink). Adding an export: regenerate, then wrap it below.
    /// </summary>
    public static partial class Native
    {
        /// <summary>
        /// The native library: libmjbridge.so on Linux (Unity: Assets/Plugins/x86_64/ or
        /// Plugins/ARM64/), mjbridge.dll on Windows (an installed tree's bin/, beside mujoco.dll);
        /// the runtime (Mono, .NET, Unity) adds prefix and suffix. macOS is not built.
        /// </summary>
        public const string Library = "mjbridge";
    }

    /// <summary>One refusal as mjb_last_error describes it; <see cref="None"/> for a call that
    /// was accepted. No member is ever null.</summary>
    public sealed class ErrorDetail
    {
        public Outcome Outcome { get; private set; }
        public Reason Reason { get; private set; }
        /// <summary>RFC 6901 JSON pointer of the offending field; "" when the library names
        /// none (HasPointer false), as on an accepted call. "" with HasPointer true is the
        /// whole document.</summary>
        public string Pointer { get; private set; }
        /// <summary>Whether the library named a field (Pointer).</summary>
        public bool HasPointer { get; private set; }
        /// <summary>The library's message ("" on an accepted call).</summary>
        public string Message { get; private set; }
        /// <summary>The JSON text as the library wrote it ("{}" on an accepted call).</summary>
        public string Json { get; private set; }

        /// <summary>The detail of an accepted call: Outcome.Ok, Reason.None, empty strings.
        /// One shared instance (reading Result.Detail of an accepted call allocates nothing).</summary>
        public static readonly ErrorDetail None = new ErrorDetail { Json = "{}", Pointer = "", Message = "" };

        /// <summary>This thread's last refusal (call it right after the refused call).</summary>
        public static ErrorDetail Last() { return FromJson(Bridge.LastErrorJson()); }

        internal static ErrorDetail FromJson(string json)
        {
            var fields = FlatJson.Parse(json);
            var d = new ErrorDetail { Json = json };
            string s;
            if (fields.TryGetValue("outcome", out s) && s != null) d.Outcome = Bridge.OutcomeFromName(s);
            if (fields.TryGetValue("reason", out s) && s != null) d.Reason = Bridge.ReasonFromName(s);
            fields.TryGetValue("pointer", out s);
            d.HasPointer = s != null;
            d.Pointer = s ?? "";
            fields.TryGetValue("message", out s);
            d.Message = s ?? "";
            return d;
        }

        public override string ToString() { return Json; }
    }

    /// <summary>A refused open or read, or a Result passed to EnsureOk.</summary>
    public sealed class MjbException : Exception
    {
        public Outcome Outcome { get; private set; }
        public Reason Reason { get; private set; }
        public string Pointer { get; private set; }
        public ErrorDetail Detail { get; private set; }

        public MjbException(Outcome outcome, ErrorDetail detail)
            : base(Bridge.OutcomeName(outcome) + ": " + Bridge.ReasonName(detail.Reason)
                   + (detail.HasPointer ? " at " + detail.Pointer : "") + ": " + detail.Message)
        {
            Outcome = outcome;
            Reason = detail.Reason;
            Pointer = detail.Pointer;
            Detail = detail;
        }
    }

    /// <summary>
    /// The answer of a mutation: its report and, unless plain Ok, the refusal's detail. A value
    /// type that allocates nothing: an accepted call copies the report alone; a refused one (or
    /// an Ok with a reason) also copies mjb_last_error's bytes into a buffer of the calling
    /// thread, and <see cref="Detail"/> parses them only when asked.
    /// </summary>
    public struct Result
    {
        public Report Report;
        // Which refusal of which thread this Result's detail is (0: none).
        readonly long stamp;
        readonly int thread;

        Result(Report r, long stamp, int thread)
        {
            Report = r;
            this.stamp = stamp;
            this.thread = thread;
        }

        public Outcome Outcome { get { return Report.Outcome; } }
        public Reason Reason { get { return Report.Reason; } }
        public bool Ok { get { return Report.Outcome == Outcome.Ok; } }
        /// <summary>This call made a detail (it was refused, or Ok with a reason).</summary>
        public bool HasDetail { get { return stamp != 0; } }

        /// <summary>
        /// mjb_last_error's detail when the outcome is not Ok or a reason is given, else
        /// ErrorDetail.None (never null: r.Detail.Pointer is "" on an accepted call, and reading
        /// it allocates nothing). A refusal's detail is parsed when read (this allocates), from
        /// the copy the call made. Read it on the thread that made the call, before that
        /// thread's next refused call through this binding: after that the copy holds the later
        /// refusal and this throws InvalidOperationException.
        /// </summary>
        public ErrorDetail Detail
        {
            get
            {
                if (stamp == 0) return ErrorDetail.None;
                return LastError.Parse(stamp, thread);
            }
        }

        /// <summary>Throw MjbException unless the outcome is Ok; returns this Result.</summary>
        public Result EnsureOk()
        {
            if (!Ok) throw new MjbException(Report.Outcome, HasDetail ? Detail : ErrorDetail.Last());
            return this;
        }

        internal static Result Of(Outcome o, Report r)
        {
            if (o == Outcome.Ok && r.Reason == Reason.None) return new Result(r, 0, 0);
            return new Result(r, LastError.Capture(), Environment.CurrentManagedThreadId);
        }

        /// <summary>A Result for `r` whose Detail is this thread's last error, whatever the
        /// outcome (a call that took effect but whose follow-up failed).</summary>
        internal static Result WithDetail(Report r)
        {
            return new Result(r, LastError.Capture(), Environment.CurrentManagedThreadId);
        }
    }

    /// <summary>
    /// The calling thread's copy of mjb_last_error, taken right after a refused call into a
    /// buffer reused by the thread's later refusals: capturing allocates nothing once the
    /// buffer has grown to the largest detail seen.
    /// </summary>
    static class LastError
    {
        [ThreadStatic] static byte[] buffer;
        [ThreadStatic] static int length;
        [ThreadStatic] static long captured;

        public static long Capture()
        {
            if (buffer == null) buffer = new byte[1024];
            UIntPtr needed;
            Outcome o = Native.mjb_last_error(buffer, (UIntPtr)(ulong)buffer.Length, out needed);
            if (o != Outcome.Ok && (ulong)needed > (ulong)buffer.Length)
            {
                buffer = new byte[(int)(ulong)needed * 2];
                o = Native.mjb_last_error(buffer, (UIntPtr)(ulong)buffer.Length, out needed);
            }
            length = o == Outcome.Ok ? (int)(ulong)needed - 1 : 0;
            return ++captured;
        }

        public static ErrorDetail Parse(long stamp, int thread)
        {
            if (thread != Environment.CurrentManagedThreadId || stamp != captured)
                throw new InvalidOperationException(
                    "this Result's detail was replaced: read Result.Detail on the thread of the call, before its next refused call");
            string json = length > 0 ? Encoding.UTF8.GetString(buffer, 0, length) : "{}";
            return ErrorDetail.FromJson(json);
        }
    }

    /// <summary>Library-wide functions: version, build facts, names, last error.</summary>
    public static class Bridge
    {
        public static string Version { get { return Text.FromNul(Native.mjb_version()); } }

        /// <summary>The MuJoCo the bridge was built against and runs with (JSON).</summary>
        public static string BuildInfo()
        {
            IntPtr s;
            Outcome o = Native.mjb_build_info(out s);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return Text.Take(s);
        }

        public static string OutcomeName(Outcome o) { return Text.FromNul(Native.mjb_outcome_name((int)o)); }
        public static string ReasonName(Reason r) { return Text.FromNul(Native.mjb_reason_name((int)r)); }

        // Values the library may name: a newer library can name a value this file does not list
        // yet, which then comes back as its integer (an enum holds any int).
        const int NamedValues = 1024;

        /// <summary>The value whose library name is `name` ("MJB_REJECTED"); unknown names throw.</summary>
        public static Outcome OutcomeFromName(string name)
        {
            for (int i = 0; i < NamedValues; i++)
                if (Text.FromNul(Native.mjb_outcome_name(i)) == name) return (Outcome)i;
            throw new ArgumentException("unknown outcome name " + name);
        }

        static Dictionary<string, Reason> reasons; // the library's names, read once

        /// <summary>The value whose library name is `name` ("MJB_REASON_SEED"); unknown names throw.</summary>
        public static Reason ReasonFromName(string name)
        {
            var table = reasons;
            if (table == null)
            {
                table = new Dictionary<string, Reason>();
                for (int i = 0; i < NamedValues; i++)
                {
                    string n = Text.FromNul(Native.mjb_reason_name(i));
                    if (n != "MJB_REASON_UNKNOWN_VALUE") table[n] = (Reason)i;
                }
                reasons = table;
            }
            Reason r;
            if (table.TryGetValue(name, out r)) return r;
            throw new ArgumentException("unknown reason name " + name);
        }

        /// <summary>The name of a field ("qpos", ...).</summary>
        public static string FieldName(Field f) { return Text.FromNul(Native.mjb_field_name((int)f)); }

        /// <summary>Load a MuJoCo plugin library; returns how many plugins it registered.</summary>
        public static ulong PluginLoad(string path)
        {
            UIntPtr n;
            Outcome o = Native.mjb_plugin_load(Text.Nul(path), out n);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return (ulong)n;
        }

        /// <summary>Load every plugin library of a folder; returns (libraries, plugins).</summary>
        public static ulong[] PluginLoadDir(string dir)
        {
            UIntPtr libs, n;
            Outcome o = Native.mjb_plugin_load_dir(Text.Nul(dir), out libs, out n);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return new[] { (ulong)libs, (ulong)n };
        }

        // IL2CPP (Unity's AOT backend) can hand native code only a delegate to a static method
        // marked [MonoPInvokeCallback]; a lambda or an instance method throws at the call. So the
        // library always gets the same delegate, to DeliverLog, and the user's handler travels in
        // user_data as a GCHandle: the library swaps (callback, user_data) in one step, so a
        // message always reaches the handler set with it. tests/engine_packages.rs checks the
        // compiled assembly for any other delegate handed to a native import.
        static readonly LogCallback logTrampoline = DeliverLog; // static: never collected
        static IntPtr logHandler; // the GCHandle of the handler the library holds, or zero

        [AOT.MonoPInvokeCallback(typeof(LogCallback))]
        static void DeliverLog(IntPtr userData, int level, IntPtr message)
        {
            // Nothing may unwind into the native caller (IL2CPP aborts the player): a handler's
            // exception ends here.
            try
            {
                var handler = (Action<LogLevel, string>)GCHandle.FromIntPtr(userData).Target;
                handler((LogLevel)level, Text.FromNul(message));
            }
            catch (Exception)
            {
            }
        }

        /// <summary>Whether a log callback is set.</summary>
        public static bool HasLogCallback { get { return logHandler != IntPtr.Zero; } }

        /// <summary>
        /// Route MuJoCo's warnings inside the bridge's calls and the bridge's events to `handler`
        /// (null removes it). Called on the thread whose call produced the message, when that
        /// call returns, outside every lock. When this returns the previous handler is not
        /// running and is not called again. An exception thrown by the handler is caught and
        /// dropped (it must not cross the native frames). IL2CPP-safe: the library calls a
        /// static [MonoPInvokeCallback] method, which reaches `handler` through user_data.
        /// </summary>
        public static void SetLogCallback(Action<LogLevel, string> handler, LogLevel minLevel = LogLevel.Warning)
        {
            lock (typeof(Bridge))
            {
                IntPtr next = handler == null ? IntPtr.Zero : GCHandle.ToIntPtr(GCHandle.Alloc(handler));
                Outcome o = Native.mjb_set_log_callback(handler == null ? null : logTrampoline, next, (int)minLevel);
                if (o != Outcome.Ok)
                {
                    if (next != IntPtr.Zero) GCHandle.FromIntPtr(next).Free();
                    throw new MjbException(o, ErrorDetail.Last());
                }
                // The library no longer calls with the previous handler: its handle may go.
                if (logHandler != IntPtr.Zero) GCHandle.FromIntPtr(logHandler).Free();
                logHandler = next;
            }
        }

        /// <summary>This thread's last refusal as JSON, "{}" when the last call succeeded.</summary>
        public static string LastErrorJson()
        {
            UIntPtr needed;
            Native.mjb_last_error(null, UIntPtr.Zero, out needed);
            var buf = new byte[(int)(ulong)needed];
            if (buf.Length == 0 || Native.mjb_last_error(buf, needed, out needed) != Outcome.Ok) return "{}";
            return Encoding.UTF8.GetString(buf, 0, buf.Length - 1);
        }
    }

    /// <summary>An endpoint: one MuJoCo model/data pair owned by the bridge.</summary>
    public sealed class Endpoint : IDisposable
    {
        public const uint WaitForever = Constants.WaitForever;
        readonly EndpointHandle handle;

        Endpoint(EndpointHandle h) { handle = h; }

        /// <summary>The owned handle, for calls through Native.</summary>
        public EndpointHandle Handle { get { return handle; } }

        /// <summary>Load a model per `config`: a config document, {"model": {"xml_path": ...} |
        /// {"xml": ...}, "seed", "profile", ...}, when its first character other than JSON
        /// whitespace is '{'; else the path of an MJCF file, as Config.FromPath(config) (so
        /// Open("robot.xml") loads robot.xml). A file whose path starts with '{' goes through
        /// Config.FromPath.</summary>
        public static Endpoint Open(string config)
        {
            if (config == null) throw new ArgumentNullException("config");
            if (!Config.IsDocument(config)) return Open(Config.FromPath(config));
            return Open(Text.Utf8(config));
        }

        /// <summary>Load a model per a Config (every string escaped for you).</summary>
        public static Endpoint Open(Config config)
        {
            if (config == null) throw new ArgumentNullException("config");
            return Open(config.ToJson());
        }

        public static Endpoint Open(byte[] configUtf8)
        {
            EndpointHandle h;
            Outcome o = Native.mjb_endpoint_open(configUtf8, Text.Len(configUtf8), out h);
            return Opened(o, h);
        }

        /// <summary>Take ownership of a host's mjModel*/mjData* (only when this returns).
        /// `configJson` is read as Open reads a string (a path there names a model, which adopt
        /// refuses: the host brings its own).</summary>
        public static Endpoint Adopt(IntPtr model, IntPtr data, string configJson)
        {
            if (configJson == null) throw new ArgumentNullException("configJson");
            if (!Config.IsDocument(configJson)) configJson = Config.FromPath(configJson).ToJson();
            byte[] cfg = Text.Utf8(configJson);
            EndpointHandle h;
            Outcome o = Native.mjb_endpoint_adopt(model, data, cfg, Text.Len(cfg), out h);
            return Opened(o, h);
        }

        static Endpoint Opened(Outcome o, EndpointHandle h)
        {
            if (o != Outcome.Ok)
            {
                var detail = ErrorDetail.Last();
                if (h != null) h.SetHandleAsInvalid();
                throw new MjbException(o, detail);
            }
            return new Endpoint(h);
        }

        public void Dispose() { handle.Dispose(); }

        public bool IsClosed { get { return handle.IsClosed; } }

        // Every mutation takes an optional precondition, `expect` (a value: nothing allocated),
        // and has one code path: the mjb_*_if export, whose precondition is checked member by
        // member where its flag is set. Without one the Expect has no flags, which is the plain
        // export's call exactly (the header: "expect ... none"); with one a stale tick,
        // configuration or frame is refused with Reason.Precondition, nothing done.

        /// <summary>The precondition an `expect` argument stands for: no flags (nothing
        /// checked) when there is none.</summary>
        internal static Expect Precondition(Expect? expect) { return expect.GetValueOrDefault(); }

        /// <summary>Step `nstep` times (a stop latched meanwhile halts at a step boundary: Ok
        /// with Reason.StopLatched).</summary>
        public Result Step(uint nstep, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            Report r;
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_step_if(handle, ref e, nstep, timeoutMs, out r), r);
        }

        /// <summary>Write ctrl (length nu, finite values).</summary>
        public Result SetCtrl(double[] ctrl, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            if (ctrl == null) throw new ArgumentNullException("ctrl");
            Report r;
            UIntPtr n = (UIntPtr)(ulong)ctrl.Length;
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_set_ctrl_if(handle, ref e, ctrl, n, timeoutMs, out r), r);
        }

        public Result WorldWrite(string json, uint timeoutMs = WaitForever, Expect? expect = null) { return WorldWrite(Text.Utf8(json), timeoutMs, expect); }

        public Result WorldWrite(byte[] utf8, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            Report r;
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_world_write_if(handle, ref e, utf8, Text.Len(utf8), timeoutMs, out r), r);
        }

        /// <summary>Restore a checkpoint (or a snapshot's world document) and its tick.</summary>
        public Result Restore(string json, uint timeoutMs = WaitForever, Expect? expect = null) { return Restore(Text.Utf8(json), timeoutMs, expect); }

        public Result Restore(byte[] utf8, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            Report r;
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_restore_if(handle, ref e, utf8, Text.Len(utf8), timeoutMs, out r), r);
        }

        /// <summary>Replace the model per `configJson`: {"model": {...}} (a document: '{' first,
        /// after whitespace) or an MJCF file's path, read as Open reads a string. The tick
        /// stays; the configuration goes up by one.</summary>
        public Result ReplaceModel(string configJson, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            if (configJson == null) throw new ArgumentNullException("configJson");
            if (!Config.IsDocument(configJson)) configJson = Config.FromPath(configJson).ModelJson();
            byte[] cfg = Text.Utf8(configJson);
            Report r;
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_endpoint_replace_model_if(handle, ref e, cfg, Text.Len(cfg), timeoutMs, out r), r);
        }

        /// <summary>Replace the model with the Config's model (its other members are not part of a
        /// replacement).</summary>
        public Result ReplaceModel(Config config, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            if (config == null) throw new ArgumentNullException("config");
            return ReplaceModel(config.ModelJson(), timeoutMs, expect);
        }

        /// <summary>Restore a restore point of this endpoint: the restore's admission, fence,
        /// stop rules and native phase (setter, bitwise readback, rollback or fence) without a
        /// document. Allocates nothing, accepted or refused (another endpoint's restore point:
        /// Reason.OtherEndpoint; one from before a model replacement: Reason.Configuration).
        /// A disposed RestorePoint throws ObjectDisposedException.</summary>
        public Result Apply(RestorePoint rp, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            if (rp == null) throw new ArgumentNullException("rp");
            Report r;
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_restore_point_apply_if(handle, ref e, rp.Handle, timeoutMs, out r), r);
        }

        /// <summary>Capture a restore point: the state the endpoint's profile restores, under the
        /// native lock, no JSON. Throws MjbException when refused (busy past the deadline, a
        /// closed endpoint).</summary>
        public RestorePoint Capture(uint timeoutMs = WaitForever)
        {
            RestorePointHandle h;
            Outcome o = Native.mjb_restore_point_capture(handle, timeoutMs, out h);
            return RestorePoint.Made(o, h);
        }

        /// <summary>A restore point of this endpoint from a checkpoint or world document,
        /// validated exactly as Restore validates it (MjbException with the same reason and
        /// pointer when refused), restoring nothing: load a saved state once, apply it often.</summary>
        public RestorePoint RestorePointFromJson(string json) { return RestorePointFromJson(Text.Utf8(json)); }

        public RestorePoint RestorePointFromJson(byte[] utf8)
        {
            RestorePointHandle h;
            Outcome o = Native.mjb_restore_point_from_json(handle, utf8, Text.Len(utf8), out h);
            return RestorePoint.Made(o, h);
        }

        /// <summary>The world document (MjbException when refused), with its tick and configuration.</summary>
        public Document World(uint timeoutMs = WaitForever) { return Read(Native.mjb_world_read_info, timeoutMs); }
        public Document Snapshot(uint timeoutMs = WaitForever) { return Read(Native.mjb_world_read_info, timeoutMs); }
        public Document Checkpoint(uint timeoutMs = WaitForever) { return Read(Native.mjb_checkpoint_read_info, timeoutMs); }

        /// <summary>The model's identity, "sha256:&lt;hex&gt;" (the world document's
        /// model_fingerprint): models with the same dimensions and other parameters differ. No lock.</summary>
        public string ModelFingerprint()
        {
            var buf = new byte[128];
            UIntPtr needed;
            Outcome o = Native.mjb_model_fingerprint(handle, buf, (UIntPtr)(ulong)buf.Length, out needed);
            if (o != Outcome.Ok && (ulong)needed > (ulong)buf.Length)
            {
                buf = new byte[(int)(ulong)needed];
                o = Native.mjb_model_fingerprint(handle, buf, needed, out needed);
            }
            Check(o);
            return Encoding.UTF8.GetString(buf, 0, (int)(ulong)needed - 1);
        }

        /// <summary>Latch a stop now; never waits for the native lock.</summary>
        public SafetyState Stop()
        {
            SafetyState s;
            Outcome o = Native.mjb_stop(handle, out s);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return s;
        }

        public SafetyState Safety()
        {
            SafetyState s;
            Outcome o = Native.mjb_safety_read(handle, out s);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return s;
        }

        /// <summary>Restore the exact state the endpoint had at <paramref name="tick"/> of its
        /// history (config "history"): the restore's admission, fence and stop rules; outside
        /// the window Reason.OutOfRange, a replay that does not reproduce the recording rolled
        /// back with Reason.ReplayDiverged, one a stop latched meanwhile halted with
        /// Reason.StopLatched.</summary>
        public Result Rewind(ulong tick, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            Report r;
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_rewind_if(handle, ref e, tick, timeoutMs, out r), r);
        }

        /// <summary>The history's window (oldest and newest tick), keyframes and bytes; no
        /// lock. Throws MjbException on an endpoint without "history".</summary>
        public HistoryState HistoryInfo()
        {
            HistoryState s;
            Outcome o = Native.mjb_history_info(handle, out s);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return s;
        }

        /// <summary>Ticks <paramref name="fromTick"/>..=<paramref name="toTick"/> of the history
        /// window as a recording document (mjbridge_recording_v1, strict JSON) that
        /// `mjbridge replay` re-executes and verifies; <paramref name="toTick"/> = ulong.MaxValue:
        /// the newest tick. A read under the native lock: changes nothing, works on a stopped or
        /// fenced endpoint. Throws MjbException (Reason.OutOfRange) outside the window or without
        /// "history".</summary>
        public string HistoryExport(ulong fromTick, ulong toTick = ulong.MaxValue, uint timeoutMs = WaitForever)
        {
            IntPtr s;
            Check(Native.mjb_history_export(handle, fromTick, toTick, timeoutMs, out s));
            return Text.Take(s);
        }

        /// <summary>The whole history window as a recording document (HistoryExportWindow).</summary>
        public string HistoryExport() { return HistoryExportWindow(); }

        /// <summary>The whole history window as a recording document, its oldest and newest
        /// tick decided under the lock the export holds (mjb_history_export_window): a thread
        /// stepping meanwhile cannot slide the window from under it, as it can between
        /// HistoryInfo() and HistoryExport(OldestTick). Throws MjbException (Reason.OutOfRange)
        /// without "history" or before anything was recorded.</summary>
        public string HistoryExportWindow(uint timeoutMs = WaitForever)
        {
            IntPtr s;
            Check(Native.mjb_history_export_window(handle, timeoutMs, out s));
            return Text.Take(s);
        }

        public Outcome ConfirmPaused() { return Native.mjb_confirm_paused(handle); }
        public Outcome SafetyReset() { return Native.mjb_safety_reset(handle); }

        // --- model facts and names: no lock ---

        public ModelDims Dims()
        {
            ModelDims d;
            Check(Native.mjb_dims(handle, out d));
            return d;
        }

        /// <summary>mj_name2id for a kind; -1 when no object of that kind has the name.</summary>
        public int NameToId(ObjectKind kind, string name)
        {
            int id;
            Outcome o = Native.mjb_name_to_id(handle, (int)kind, Text.Nul(name), out id);
            if (o == Outcome.Rejected) return -1;
            Check(o);
            return id;
        }

        /// <summary>mj_id2name for a kind ("" for an unnamed object).</summary>
        public string IdToName(ObjectKind kind, int id)
        {
            UIntPtr needed;
            Outcome o = Native.mjb_id_to_name(handle, (int)kind, id, null, UIntPtr.Zero, out needed);
            if ((ulong)needed == 0) Check(o);
            var buf = new byte[(int)(ulong)needed];
            Check(Native.mjb_id_to_name(handle, (int)kind, id, buf, needed, out needed));
            return Encoding.UTF8.GetString(buf, 0, buf.Length - 1);
        }

        /// <summary>Where sensor `sensor` sits in sensordata: { address, dimension }.</summary>
        public ulong[] SensorSlice(int sensor)
        {
            UIntPtr adr, dim;
            Check(Native.mjb_sensor_slice(handle, sensor, out adr, out dim));
            return new[] { (ulong)adr, (ulong)dim };
        }

        public JointAdr JointSlice(int joint)
        {
            JointAdr a;
            Check(Native.mjb_joint_slice(handle, joint, out a));
            return a;
        }

        // --- frames: no lock, never torn ---

        public int FrameFieldLen(Field f)
        {
            UIntPtr n;
            Check(Native.mjb_frame_field_len(handle, (int)f, out n));
            return checked((int)(ulong)n);
        }

        /// <summary>One field of the latest frame into `buf` (at least FrameFieldLen long).</summary>
        public FrameInfo ReadFrame(Field f, double[] buf)
        {
            UIntPtr written;
            FrameInfo info;
            Check(Native.mjb_frame_read(handle, (int)f, buf, (UIntPtr)(ulong)(buf == null ? 0 : buf.Length), out written, out info));
            return info;
        }

        /// <summary>One field of the latest frame into `buf`, without throwing: Ok, or the
        /// refusal's outcome (detail in ErrorDetail.Last()). Allocates nothing.</summary>
        public Outcome TryReadFrame(Field f, double[] buf, out FrameInfo info)
        {
            UIntPtr written;
            return Native.mjb_frame_read(handle, (int)f, buf, (UIntPtr)(ulong)(buf == null ? 0 : buf.Length), out written, out info);
        }

        /// <summary>Several fields of one frame (one tick) into the given buffers. Allocates
        /// nothing after the thread's first call (its request and pin tables are kept); to
        /// read the same fields every frame, a FrameReader pins them once.</summary>
        public FrameInfo ReadFrame(Field[] fields, double[][] bufs)
        {
            FrameInfo info;
            Check(TryReadFrame(fields, bufs, out info));
            return info;
        }

        /// <summary>ReadFrame without throwing: Ok, or the refusal's outcome.</summary>
        public Outcome TryReadFrame(Field[] fields, double[][] bufs, out FrameInfo info)
        {
            if (fields == null || bufs == null) throw new ArgumentNullException(fields == null ? "fields" : "bufs");
            if (fields.Length != bufs.Length) throw new ArgumentException("one buffer per field");
            if (fields.Length > Pins.Max) throw new ArgumentException("at most 64 fields in one read");
            Pins p = Pins.Rent();
            int n = fields.Length;
            try
            {
                for (int i = 0; i < n; i++)
                {
                    p.Handles[i] = GCHandle.Alloc(bufs[i], GCHandleType.Pinned);
                    p.Requests[i] = new FrameRequest { Field = fields[i], Buf = p.Handles[i].AddrOfPinnedObject(), Cap = (UIntPtr)(ulong)(bufs[i] == null ? 0 : bufs[i].Length) };
                }
                return Native.mjb_frame_read_many(handle, p.Requests, (UIntPtr)(ulong)n, out info);
            }
            finally
            {
                p.Release(n);
            }
        }

        /// <summary>A reader of `fields` into `bufs` (one per field, at least its length),
        /// pinned once: each Read() is one call that allocates nothing.</summary>
        public FrameReader FrameReader(Field[] fields, double[][] bufs) { return new FrameReader(this, fields, bufs); }

        /// <summary>A host loop's step in one call (mjb_write_step_read): Ctrl written, `nstep`
        /// steps, `read` copied into `bufs`. See <see cref="MjBridge.Stepper"/>.</summary>
        public Stepper Stepper(Field[] read, double[][] bufs, uint nstep = 1, uint timeoutMs = WaitForever)
        {
            return new Stepper(this, read, bufs, nstep, timeoutMs);
        }

        /// <summary>Name-based slices of qpos, qvel, ctrl and sensordata (read once).</summary>
        public ModelIndex Index() { return new ModelIndex(this); }

        // --- typed inputs ---

        /// <summary>Write one input field, whole (id -1) or one object's slice.</summary>
        public Result Input(Field f, int id, double[] values, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            Report r;
            UIntPtr n = (UIntPtr)(ulong)(values == null ? 0 : values.Length);
            Expect e = Precondition(expect);
            return Result.Of(Native.mjb_input_write_if(handle, ref e, (int)f, id, values, n, timeoutMs, out r), r);
        }

        /// <summary>Write ctrl, then step `nstep` times, under one admission. Allocates nothing
        /// (after the thread's first call), accepted or refused. With `expect`, the
        /// controller's compare-and-step: ctrl chosen for the tick seen is written and stepped
        /// only if the endpoint is still there.</summary>
        public Result CtrlStep(double[] ctrl, uint nstep = 1, uint timeoutMs = WaitForever, Expect? expect = null)
        {
            if (ctrl == null) throw new ArgumentNullException("ctrl");
            Pins p = Pins.Rent();
            p.Handles[0] = GCHandle.Alloc(ctrl, GCHandleType.Pinned);
            try
            {
                p.Inputs[0] = new Input { Field = Field.Ctrl, Id = -1, Values = p.Handles[0].AddrOfPinnedObject(), N = (UIntPtr)(ulong)ctrl.Length };
                Report r;
                Expect e = Precondition(expect);
                return Result.Of(Native.mjb_write_step_if(handle, ref e, p.Inputs, (UIntPtr)1UL, nstep, timeoutMs, out r), r);
            }
            finally
            {
                p.Release(1);
            }
        }

        static void Check(Outcome o)
        {
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
        }

        delegate Outcome Reader(EndpointHandle ep, uint timeoutMs, out IntPtr s, out ReadInfo info);

        Document Read(Reader f, uint timeoutMs)
        {
            IntPtr s;
            ReadInfo info;
            Outcome o = f(handle, timeoutMs, out s, out info);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return new Document(Text.Take(s), info);
        }
    }

    /// <summary>The calling thread's pin and request tables, reused by every call that passes
    /// arrays of structs (ReadFrame, CtrlStep): no allocation after the thread's first use. A
    /// call made from inside another (a log callback runs before the outer call returns) gets
    /// tables of its own.</summary>
    sealed class Pins
    {
        public const int Max = 64;
        [ThreadStatic] static Pins current;
        public readonly GCHandle[] Handles = new GCHandle[Max];
        public readonly FrameRequest[] Requests = new FrameRequest[Max];
        public readonly Input[] Inputs = new Input[1];
        bool inUse;

        /// <summary>The thread's tables (or fresh ones while those are in use); Release them.</summary>
        public static Pins Rent()
        {
            Pins p = current ?? (current = new Pins());
            if (p.inUse) p = new Pins();
            p.inUse = true;
            return p;
        }

        public void Release(int n)
        {
            for (int i = 0; i < n; i++)
                if (Handles[i].IsAllocated) Handles[i].Free();
            inUse = false;
        }
    }

    /// <summary>
    /// Fields of the latest frame read again and again into the same buffers, pinned once and
    /// checked once (a native mjb_frame_reader): Read() is one call that allocates nothing and
    /// takes no lock. Dispose() frees the native reader and unpins (the finalizer does too).
    /// One reader per thread.
    /// </summary>
    public class FrameReader : IDisposable
    {
        protected readonly Endpoint endpoint;
        protected readonly FrameRequest[] requests;
        readonly GCHandle[] pins;
        protected FrameInfo info;

        internal FrameReader(Endpoint ep, Field[] fields, double[][] bufs)
        {
            if (ep == null || fields == null || bufs == null) throw new ArgumentNullException(ep == null ? "ep" : fields == null ? "fields" : "bufs");
            if (fields.Length != bufs.Length) throw new ArgumentException("one buffer per field");
            if (fields.Length > Pins.Max) throw new ArgumentException("at most 64 fields in one read");
            endpoint = ep;
            Fields = (Field[])fields.Clone();
            Buffers = (double[][])bufs.Clone();
            requests = new FrameRequest[Math.Max(fields.Length, 1)];
            pins = new GCHandle[fields.Length];
            for (int i = 0; i < fields.Length; i++)
            {
                if (bufs[i] == null) throw new ArgumentNullException("bufs[" + i + "]");
                pins[i] = GCHandle.Alloc(bufs[i], GCHandleType.Pinned);
                requests[i] = new FrameRequest { Field = fields[i], Buf = pins[i].AddrOfPinnedObject(), Cap = (UIntPtr)(ulong)bufs[i].Length };
            }
        }

        /// <summary>The fields read, and the caller's buffers they are read into.</summary>
        public Field[] Fields { get; private set; }
        public double[][] Buffers { get; private set; }
        /// <summary>The last read's FrameInfo (tick, time, cause, stale fields).</summary>
        public FrameInfo Info { get { return info; } }

        /// <summary>Read, or throw MjbException when refused (field not in the frame, buffer too short).</summary>
        public FrameInfo Read()
        {
            Outcome o = TryRead();
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return info;
        }

        /// <summary>Read without throwing: Ok, or the refusal's outcome (ErrorDetail.Last()).
        /// The first read prepares a native reader over the pinned buffers
        /// (mjb_frame_reader_new: the requests checked once), later reads only copy
        /// (mjb_frame_reader_read). After ReplaceModel the reader is prepared again, so a read
        /// answers as mjb_frame_read_many would: the new model's fields, or a refusal when a
        /// buffer is now too short.</summary>
        public Outcome TryRead()
        {
            Check();
            EndpointHandle ep = endpoint.Handle;
            if (ep.IsClosed) throw new ObjectDisposedException("Endpoint");
            if (native == null)
            {
                UIntPtr n = (UIntPtr)(ulong)Fields.Length;
                if (refused)
                {
                    // Refused before: answer with the plain read (allocation-free), and prepare
                    // again once it is accepted.
                    Outcome plain = Native.mjb_frame_read_many(ep, requests, n, out info);
                    if (plain == Outcome.Ok) refused = false;
                    return plain;
                }
                FrameReaderHandle made;
                Outcome m = Native.mjb_frame_reader_new(ep, requests, n, out made);
                if (m != Outcome.Ok)
                {
                    made.Dispose();
                    refused = true;
                    info = default(FrameInfo);
                    return m;
                }
                native = made;
                AfterPrepare();
            }
            Outcome o = Native.mjb_frame_reader_read(native, out info);
            if (o == Outcome.Rejected && ErrorDetail.Last().Reason == Reason.Configuration)
            {
                // Made for the model before a replacement: prepare again for the new one.
                native.Dispose();
                native = null;
                return TryRead();
            }
            return o;
        }

        FrameReaderHandle native;
        bool refused;

        /// <summary>How many values a read writes into each buffer (the field's length in the
        /// current model); 0 before the first read. After ReplaceModel the next read prepares
        /// the reader again and sets the entries of a buffer past the new length to NaN, so no
        /// value of the old model is left to be read as the new one's.</summary>
        public int[] Lengths { get { return (int[])lengths.Clone(); } }
        int[] lengths = new int[0];

        void AfterPrepare()
        {
            if (lengths.Length != Fields.Length) lengths = new int[Fields.Length];
            for (int i = 0; i < Fields.Length; i++)
            {
                int w = (int)(ulong)requests[i].Written;
                lengths[i] = w;
                double[] b = Buffers[i];
                for (int j = w; j < b.Length; j++) b[j] = double.NaN;
            }
        }

        protected void Check()
        {
            if (disposed) throw new ObjectDisposedException(GetType().Name);
        }

        bool disposed;

        public void Dispose()
        {
            if (disposed) return;
            disposed = true;
            // The native reader first: it borrows the pinned buffers.
            if (native != null) native.Dispose();
            Unpin();
            GC.SuppressFinalize(this);
        }

        // Unreachable, so never read again: the native reader's own finalizer frees it.
        ~FrameReader() { Unpin(); }

        /// <summary>Free the pins (once, from Dispose or the finalizer).</summary>
        protected virtual void Unpin()
        {
            foreach (var p in pins) if (p.IsAllocated) p.Free();
        }
    }

    /// <summary>
    /// One step of a host loop per call (mjb_write_step_read): the Ctrl array written, `nstep`
    /// engine steps, the frame's fields copied into the caller's buffers. Every argument is
    /// built and pinned once, so Step() allocates nothing, accepted or refused (a refusal's
    /// detail is parsed only when Result.Detail is read). Step() after Dispose() throws. One
    /// stepper per thread; after ReplaceModel make a new one (a size that no longer fits is
    /// refused by the library, never read or written out of bounds).
    /// </summary>
    public sealed class Stepper : FrameReader
    {
        readonly Input[] inputs = new Input[1];
        GCHandle ctrlPin;
        readonly uint nstep, timeoutMs;
        /// <summary>The controls the next Step() writes (length nu); change them in place.</summary>
        public readonly double[] Ctrl;

        internal Stepper(Endpoint ep, Field[] read, double[][] bufs, uint nstep, uint timeoutMs)
            : base(ep, read, bufs)
        {
            Ctrl = new double[(int)ep.Dims().Nu];
            ctrlPin = GCHandle.Alloc(Ctrl, GCHandleType.Pinned);
            inputs[0] = new Input { Field = Field.Ctrl, Id = -1, Values = ctrlPin.AddrOfPinnedObject(), N = (UIntPtr)(ulong)Ctrl.Length };
            this.nstep = nstep;
            this.timeoutMs = timeoutMs;
        }

        /// <summary>Write Ctrl, step, read the frame (Info and the buffers). With `expect`, the
        /// controller's compare-and-step (see Expect): refused with Reason.Precondition, nothing
        /// written or read, unless the endpoint is still where the caller saw it (one call,
        /// mjb_write_step_read_if, allocation-free).</summary>
        public Result Step(Expect? expect = null)
        {
            Check();
            Report r;
            UIntPtr n = (UIntPtr)(ulong)Fields.Length;
            Expect e = Endpoint.Precondition(expect);
            return Answer(Native.mjb_write_step_read_if(endpoint.Handle, ref e, inputs, (UIntPtr)1UL, nstep, timeoutMs,
                requests, n, out info, out r), r);
        }

        // Stepped, but the frame was not read (the model was replaced in between): the step's
        // Ok, Info.Frame 0, and the library's reason in Detail.
        Result Answer(Outcome o, Report r)
        {
            return o == Outcome.Ok && info.Frame == 0 ? Result.WithDetail(r) : Result.Of(o, r);
        }

        /// <summary>Copy `ctrl` into Ctrl, then Step(expect).</summary>
        public Result Step(double[] ctrl, Expect? expect = null)
        {
            if (ctrl == null) throw new ArgumentNullException("ctrl");
            if (ctrl.Length != Ctrl.Length) throw new ArgumentException("ctrl has " + ctrl.Length + " values; the model has nu = " + Ctrl.Length);
            Array.Copy(ctrl, Ctrl, Ctrl.Length);
            return Step(expect);
        }

        protected override void Unpin()
        {
            if (ctrlPin.IsAllocated) ctrlPin.Free();
            base.Unpin();
        }
    }

    /// <summary>
    /// A document the bridge served (World, Snapshot, Checkpoint, RestorePoint.ToJson) and where
    /// the endpoint was when it was read: its tick and model configuration, for a mutation
    /// conditional on them (Expect.At(doc)) without parsing. Converts to string implicitly;
    /// two Documents are equal when their texts are.
    /// </summary>
    public sealed class Document : IEquatable<Document>
    {
        readonly string text;
        readonly ReadInfo info;

        public Document(string text, ReadInfo info)
        {
            if (text == null) throw new ArgumentNullException("text");
            this.text = text;
            this.info = info;
        }

        /// <summary>The JSON text, as the library wrote it.</summary>
        public string Text { get { return text; } }
        /// <summary>The endpoint's tick the document describes.</summary>
        public ulong Tick { get { return info.Tick; } }
        /// <summary>The model configuration it was read under.</summary>
        public ulong Configuration { get { return info.Configuration; } }
        /// <summary>The endpoint's last frame number when it was read (0: a restore point's).</summary>
        public ulong Frame { get { return info.Frame; } }
        public ReadInfo Info { get { return info; } }

        public static implicit operator string(Document d) { return d == null ? null : d.text; }

        public bool Equals(Document other) { return !ReferenceEquals(other, null) && other.text == text; }
        public override bool Equals(object obj) { return Equals(obj as Document); }
        public override int GetHashCode() { return text.GetHashCode(); }
        public static bool operator ==(Document a, Document b) { return ReferenceEquals(a, null) ? ReferenceEquals(b, null) : a.Equals(b); }
        public static bool operator !=(Document a, Document b) { return !(a == b); }
        public override string ToString() { return text; }
    }

    /// <summary>
    /// A restore point (Endpoint.Capture, Endpoint.RestorePointFromJson): a state restored by
    /// Endpoint.Apply without JSON, with every check of a restore. Owns a RestorePointHandle:
    /// Dispose() or the finalizer frees it; a disposed one throws ObjectDisposedException when
    /// used. Immutable: it may be applied to its endpoint, and read, from any thread at once.
    /// </summary>
    public sealed class RestorePoint : IDisposable
    {
        readonly RestorePointHandle handle;
        readonly ReadInfo info;

        RestorePoint(RestorePointHandle h, ReadInfo info)
        {
            handle = h;
            this.info = info;
        }

        internal static RestorePoint Made(Outcome o, RestorePointHandle h)
        {
            if (o != Outcome.Ok)
            {
                var detail = ErrorDetail.Last();
                if (h != null) h.SetHandleAsInvalid();
                throw new MjbException(o, detail);
            }
            ReadInfo info;
            Outcome i = Native.mjb_restore_point_info(h, out info);
            if (i != Outcome.Ok)
            {
                var detail = ErrorDetail.Last();
                h.Dispose();
                throw new MjbException(i, detail);
            }
            return new RestorePoint(h, info);
        }

        /// <summary>The owned handle, for calls through Native.</summary>
        public RestorePointHandle Handle { get { return handle; } }
        /// <summary>The tick it restores.</summary>
        public ulong Tick { get { return info.Tick; } }
        /// <summary>The model configuration it belongs to.</summary>
        public ulong Configuration { get { return info.Configuration; } }
        /// <summary>The endpoint's last frame number when it was read (0: a restore point's).</summary>
        public ulong Frame { get { return info.Frame; } }
        public ReadInfo Info { get { return info; } }
        public bool IsClosed { get { return handle.IsClosed; } }

        /// <summary>Its checkpoint document: byte for byte what Checkpoint() returned at the
        /// capture. No lock.</summary>
        public Document ToJson()
        {
            IntPtr s;
            Outcome o = Native.mjb_restore_point_to_json(handle, out s);
            if (o != Outcome.Ok) throw new MjbException(o, ErrorDetail.Last());
            return new Document(Text.Take(s), info);
        }

        /// <summary>Free it (safe while another thread applies it: that call finishes with it).</summary>
        public void Dispose() { handle.Dispose(); }
    }

    /// <summary>Where a named object's values sit in one array: [Start, Start + Length).</summary>
    public struct Slice
    {
        public int Start;
        public int Length;

        public Slice(int start, int length)
        {
            Start = start;
            Length = length;
        }

        public int End { get { return Start + Length; } }

        /// <summary>Copy this slice of `source` into `dest` at `destIndex`.</summary>
        public void CopyTo(double[] source, double[] dest, int destIndex = 0) { Array.Copy(source, Start, dest, destIndex, Length); }

        public override string ToString() { return "[" + Start + ", " + End + ")"; }
    }

    /// <summary>
    /// Where each named joint, actuator and sensor sits in qpos, qvel, ctrl and sensordata, read
    /// once from the endpoint (Endpoint.Index()): a Unity rig or a joint-state publisher reads a
    /// joint's values by name with no table of its own. Unnamed objects are not listed; an
    /// unknown name throws KeyNotFoundException (TryQpos and friends return false). Describes
    /// one model configuration: make a new index after ReplaceModel.
    /// </summary>
    public sealed class ModelIndex
    {
        readonly Dictionary<string, Slice> qpos = new Dictionary<string, Slice>();
        readonly Dictionary<string, Slice> qvel = new Dictionary<string, Slice>();
        readonly Dictionary<string, Slice> ctrl = new Dictionary<string, Slice>();
        readonly Dictionary<string, Slice> sensor = new Dictionary<string, Slice>();

        internal ModelIndex(Endpoint ep)
        {
            ModelDims d = ep.Dims();
            Configuration = d.Configuration;
            var joints = new List<string>();
            var actuators = new List<string>();
            var sensors = new List<string>();
            for (int j = 0; j < d.Njnt; j++)
            {
                string name = ep.IdToName(ObjectKind.Joint, j);
                if (name.Length == 0) continue;
                JointAdr a = ep.JointSlice(j);
                joints.Add(name);
                qpos[name] = new Slice((int)a.QposAdr, (int)a.QposLen);
                qvel[name] = new Slice((int)a.DofAdr, (int)a.DofLen);
            }
            for (int u = 0; u < d.Nu; u++)
            {
                string name = ep.IdToName(ObjectKind.Actuator, u);
                if (name.Length == 0) continue;
                actuators.Add(name);
                ctrl[name] = new Slice(u, 1);
            }
            for (int i = 0; i < d.Nsensor; i++)
            {
                string name = ep.IdToName(ObjectKind.Sensor, i);
                if (name.Length == 0) continue;
                ulong[] s = ep.SensorSlice(i);
                sensors.Add(name);
                sensor[name] = new Slice((int)s[0], (int)s[1]);
            }
            Joints = joints.ToArray();
            Actuators = actuators.ToArray();
            Sensors = sensors.ToArray();
        }

        /// <summary>The model configuration this index describes.</summary>
        public ulong Configuration { get; private set; }
        public string[] Joints { get; private set; }
        public string[] Actuators { get; private set; }
        public string[] Sensors { get; private set; }

        static Slice Find(Dictionary<string, Slice> table, string kind, string name)
        {
            Slice s;
            if (name != null && table.TryGetValue(name, out s)) return s;
            throw new KeyNotFoundException("no " + kind + " is named \"" + name + "\"");
        }

        /// <summary>A joint's values in qpos (7 for a free joint, 4 for a ball joint, else 1).</summary>
        public Slice Qpos(string joint) { return Find(qpos, "joint", joint); }
        /// <summary>A joint's degrees of freedom in qvel (and every nv-sized field).</summary>
        public Slice Qvel(string joint) { return Find(qvel, "joint", joint); }
        public Slice Ctrl(string actuator) { return Find(ctrl, "actuator", actuator); }
        public Slice Sensordata(string sensor) { return Find(this.sensor, "sensor", sensor); }

        public bool TryQpos(string joint, out Slice s) { return qpos.TryGetValue(joint, out s); }
        public bool TryQvel(string joint, out Slice s) { return qvel.TryGetValue(joint, out s); }
        public bool TryCtrl(string actuator, out Slice s) { return ctrl.TryGetValue(actuator, out s); }
        public bool TrySensordata(string sensor, out Slice s) { return this.sensor.TryGetValue(sensor, out s); }
    }

    /// <summary>
    /// An endpoint config built from typed values; ToJson() escapes every string as JSON
    /// requires (a Windows path's backslashes, quotes, control characters; non-ASCII stays
    /// UTF-8), so a path like C:\Users\Zoë\robot.xml needs no escaping by hand.
    /// </summary>
    public sealed class Config
    {
        string xmlPath, xml;

        /// <summary>Load the MJCF file at `path`.</summary>
        public static Config FromPath(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            return new Config { xmlPath = path };
        }

        /// <summary>Load MJCF text.</summary>
        public static Config FromXml(string xml)
        {
            if (xml == null) throw new ArgumentNullException("xml");
            return new Config { xml = xml };
        }

        /// <summary>How a string given as a config is read (Endpoint.Open, Adopt, ReplaceModel;
        /// the C++ and Python bindings read strings the same way): a JSON document when its
        /// first character other than JSON whitespace (space, tab, CR, LF) is '{', since a
        /// config is a JSON object; else the path of an MJCF file.</summary>
        public static bool IsDocument(string config)
        {
            if (config == null) throw new ArgumentNullException("config");
            foreach (char c in config)
            {
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
                return c == '{';
            }
            return false;
        }

        public string Name { get; set; }
        /// <summary>Checkpoint metadata (not an RNG seed).</summary>
        public ulong? Seed { get; set; }
        /// <summary>"auto", "mujoco_integration_v1" or "mujoco_basic_v1".</summary>
        public string Profile { get; set; }
        /// <summary>The fields frames carry (null: the bridge's default selection).</summary>
        public Field[] Frame { get; set; }
        /// <summary>"every_step" or "end_of_call" (null: the default, every step).</summary>
        public string Publish { get; set; }
        /// <summary>A fidelity declaration as a JSON object, written as given.</summary>
        public string FidelityJson { get; set; }
        /// <summary>A history (Rewind, HistoryExport): the last HistoryWindowTicks ticks, a
        /// keyframe every HistoryKeyframeEvery (0: no history; docs/contract.md, "History and
        /// rewind").</summary>
        public ulong HistoryWindowTicks { get; set; }
        public ulong HistoryKeyframeEvery { get; set; }

        /// <summary>{"model": {...}} alone: what ReplaceModel takes.</summary>
        public string ModelJson()
        {
            var sb = new StringBuilder();
            AppendModel(sb);
            return sb.Append('}').ToString();
        }

        void AppendModel(StringBuilder sb)
        {
            sb.Append("{\"model\":{");
            if (xmlPath != null) Json.String(sb.Append("\"xml_path\":"), xmlPath);
            else Json.String(sb.Append("\"xml\":"), xml);
            sb.Append('}');
        }

        public string ToJson()
        {
            var sb = new StringBuilder();
            AppendModel(sb);
            if (Name != null) Json.String(sb.Append(",\"name\":"), Name);
            if (Seed.HasValue) sb.Append(",\"seed\":").Append(Seed.Value.ToString(System.Globalization.CultureInfo.InvariantCulture));
            if (Profile != null) Json.String(sb.Append(",\"profile\":"), Profile);
            if (Frame != null || Publish != null)
            {
                sb.Append(",\"frame\":");
                if (Publish != null) Json.String(sb.Append("{\"publish\":"), Publish);
                if (Frame != null)
                {
                    if (Publish != null) sb.Append(",\"fields\":");
                    sb.Append('[');
                    for (int i = 0; i < Frame.Length; i++)
                    {
                        if (i > 0) sb.Append(',');
                        Json.String(sb, Bridge.FieldName(Frame[i]));
                    }
                    sb.Append(']');
                }
                if (Publish != null) sb.Append('}');
            }
            if (FidelityJson != null) sb.Append(",\"fidelity\":").Append(FidelityJson);
            if (HistoryWindowTicks != 0)
                sb.Append(",\"history\":{\"window_ticks\":").Append(HistoryWindowTicks.ToString(System.Globalization.CultureInfo.InvariantCulture))
                  .Append(",\"keyframe_every\":").Append(HistoryKeyframeEvery.ToString(System.Globalization.CultureInfo.InvariantCulture)).Append('}');
            return sb.Append('}').ToString();
        }

        public override string ToString() { return ToJson(); }
    }

    /// <summary>JSON text out (RFC 8259 string escapes).</summary>
    public static class Json
    {
        /// <summary>Append `s` as a JSON string: quotes, backslashes and control characters
        /// escaped, everything else as it is.</summary>
        public static StringBuilder String(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    default:
                        if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
                        else sb.Append(c);
                        break;
                }
            }
            return sb.Append('"');
        }
    }

    /// <summary>UTF-8 in and out.</summary>
    static class Text
    {
        public static byte[] Utf8(string s)
        {
            if (s == null) throw new ArgumentNullException("json");
            return Encoding.UTF8.GetBytes(s);
        }

        public static UIntPtr Len(byte[] b) { return (UIntPtr)(ulong)(b == null ? 0 : b.Length); }

        /// <summary>NUL-terminated UTF-8 for a `const char*` parameter.</summary>
        public static byte[] Nul(string s)
        {
            if (s == null) throw new ArgumentNullException("name");
            byte[] b = Encoding.UTF8.GetBytes(s);
            Array.Resize(ref b, b.Length + 1);
            return b;
        }

        /// <summary>Copy a library-owned mjb_string and free it, also when copying fails.</summary>
        public static string Take(IntPtr s)
        {
            try
            {
                IntPtr data = Native.mjb_string_data(s);
                int len = checked((int)(ulong)Native.mjb_string_len(s));
                var bytes = new byte[len];
                if (len > 0) Marshal.Copy(data, bytes, 0, len);
                return Encoding.UTF8.GetString(bytes);
            }
            finally
            {
                Native.mjb_string_free(s);
            }
        }

        /// <summary>A static NUL-terminated UTF-8 string of the library (not freed).</summary>
        public static string FromNul(IntPtr p)
        {
            if (p == IntPtr.Zero) return null;
            int len = 0;
            while (Marshal.ReadByte(p, len) != 0) len++;
            var bytes = new byte[len];
            Marshal.Copy(p, bytes, 0, len);
            return Encoding.UTF8.GetString(bytes);
        }
    }

    /// <summary>
    /// Reads the one flat JSON object mjb_last_error writes (string, null, number or boolean
    /// values); the base class library of Unity and Mono has no JSON reader to rely on.
    /// </summary>
    static class FlatJson
    {
        public static Dictionary<string, string> Parse(string s)
        {
            var d = new Dictionary<string, string>();
            int i = 0;
            Ws(s, ref i);
            Expect(s, ref i, '{');
            Ws(s, ref i);
            if (Peek(s, i) == '}') return d;
            while (true)
            {
                Ws(s, ref i);
                string key = Str(s, ref i);
                Ws(s, ref i);
                Expect(s, ref i, ':');
                Ws(s, ref i);
                string value;
                char c = Peek(s, i);
                if (c == '"') value = Str(s, ref i);
                else
                {
                    int start = i;
                    while (i < s.Length && s[i] != ',' && s[i] != '}' && !char.IsWhiteSpace(s[i])) i++;
                    value = s.Substring(start, i - start);
                    if (value == "null") value = null;
                }
                d[key] = value;
                Ws(s, ref i);
                if (Peek(s, i) == ',') { i++; continue; }
                Expect(s, ref i, '}');
                return d;
            }
        }

        static char Peek(string s, int i) { return i < s.Length ? s[i] : '\0'; }

        static void Ws(string s, ref int i) { while (i < s.Length && char.IsWhiteSpace(s[i])) i++; }

        static void Expect(string s, ref int i, char c)
        {
            if (Peek(s, i) != c) throw new FormatException("last-error JSON: expected '" + c + "' at " + i);
            i++;
        }

        static string Str(string s, ref int i)
        {
            Expect(s, ref i, '"');
            var sb = new StringBuilder();
            while (true)
            {
                char c = Peek(s, i++);
                if (c == '"') return sb.ToString();
                if (c == '\0' && i > s.Length) throw new FormatException("last-error JSON: open string");
                if (c != '\\') { sb.Append(c); continue; }
                char e = Peek(s, i++);
                switch (e)
                {
                    case 'n': sb.Append('\n'); break;
                    case 't': sb.Append('\t'); break;
                    case 'r': sb.Append('\r'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'u':
                        sb.Append((char)Convert.ToInt32(s.Substring(i, 4), 16));
                        i += 4;
                        break;
                    default: sb.Append(e); break;
                }
            }
        }
    }
}

#if !UNITY_5_3_OR_NEWER
namespace AOT
{
    /// <summary>Outside Unity: the attribute UnityEngine defines as AOT.MonoPInvokeCallbackAttribute
    /// (IL2CPP and Mono's AOT compiler look for it by name), so this file compiles and marks its
    /// callbacks the same way on Mono and .NET. Inside Unity, UnityEngine's is used.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { DelegateType = type; }

        public Type DelegateType { get; private set; }
    }
}
#endif
