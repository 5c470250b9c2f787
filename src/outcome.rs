//! Outcomes and reasons: the stable vocabulary every call answers in, and the refusal record
//! that carries a reason, a JSON pointer and a message up to `mjb_last_error`.

use std::fmt;

/// What happened to the endpoint's native state. Values are part of the ABI: never renumber.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum mjb_outcome {
    /// The call took full effect.
    MJB_OK = 0,
    /// Refused before any effect: native state, tick, stop history and fence untouched.
    MJB_REJECTED = 1,
    /// A native effect failed and the prior state was restored and proven by readback.
    MJB_ROLLED_BACK = 2,
    /// The effect could not be proven either way; the endpoint is now fenced.
    MJB_UNKNOWN = 3,
    /// The endpoint was fenced before this call; mutation or acknowledgement refused.
    MJB_FENCED = 4,
    /// NULL where not allowed, bad UTF-8, or a closed or foreign handle.
    MJB_INVALID_ARGUMENT = 5,
    /// A Rust panic was caught at the boundary; the endpoint is now fenced.
    MJB_PANIC = 6,
}

/// The cause inside an outcome. Values are part of the ABI: never renumber; a retired value
/// stays reserved here as a comment.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum mjb_reason {
    /// Only with `MJB_OK` when there is nothing to add.
    MJB_REASON_NONE = 0,
    /// The bytes are not one JSON object (syntax, depth, bad escape).
    MJB_REASON_MALFORMED_JSON = 1,
    /// The document is over 1 MiB, or a result would be.
    MJB_REASON_TOO_LARGE = 2,
    /// More than 32,768 native values.
    MJB_REASON_TOO_MANY_VALUES = 3,
    /// An object member the document's schema does not have (also a config naming both
    /// `xml_path` and `xml`, or a frame field that does not exist); the pointer names it.
    MJB_REASON_UNKNOWN_FIELD = 4,
    /// A required member is absent; the pointer names where it belongs.
    MJB_REASON_MISSING_FIELD = 5,
    /// A member appears twice in one object (or a frame field is listed twice); the pointer
    /// names the second.
    MJB_REASON_DUPLICATE_FIELD = 6,
    /// A value of the wrong JSON type (a string where a number goes, an object where the
    /// schema has none); the pointer names it.
    MJB_REASON_WRONG_TYPE = 7,
    /// A fraction, an exponent or a boolean where an integer goes.
    MJB_REASON_NOT_AN_INTEGER = 8,
    /// A number that does not fit a finite double (`1e400`).
    MJB_REASON_NOT_FINITE = 9,
    /// An integer outside its field's range.
    MJB_REASON_OUT_OF_RANGE = 10,
    /// The document's profile is not the endpoint's, or the engine cannot serve the profile.
    MJB_REASON_PROFILE = 11,
    /// Engine string or number differs from the running engine, or the linked library is
    /// not the release the bridge was compiled against.
    MJB_REASON_ENGINE = 12,
    /// A descriptor dimension or the timestep differs from the live model.
    MJB_REASON_DESCRIPTOR = 13,
    /// The model configuration counter differs (the model was replaced).
    MJB_REASON_CONFIGURATION = 14,
    /// A checkpoint's `signature` is not the running engine's `mjSTATE_INTEGRATION` value: it
    /// was taken by an engine whose integration state has other components.
    MJB_REASON_SIGNATURE = 15,
    /// `size` differs from the native state size, or `values` does not hold `size` numbers.
    MJB_REASON_SIZE = 16,
    /// An equality activation that is not exactly 0 or 1.
    MJB_REASON_EQ_ACTIVE_DOMAIN = 17,
    /// `time`/`qpos`/`qvel`/`ctrl` differ from their segment of `values`.
    MJB_REASON_PUBLIC_FIELD_MISMATCH = 18,
    /// A checkpoint's `seed` is not the endpoint's configured `seed` (config `"seed"`).
    MJB_REASON_SEED = 19,
    /// A world write names a served field that is not an input (`native_checkpoint`, `tick`,
    /// `time`, `qpos`, `qvel`, ...), or a typed input names a field that is not an input.
    MJB_REASON_READ_ONLY_FIELD = 20,
    /// The deadline passed before the native lock was free.
    MJB_REASON_BUSY = 21,
    /// A stop is latched. With `MJB_OK`: a step call halted at a step boundary (the report's
    /// `tick_after` shows the steps done). With `MJB_REJECTED`: a step call admitted after
    /// the latch took no step. `mjb_safety_reset` clears the latch.
    MJB_REASON_STOP_LATCHED = 22,
    /// Native work is still in flight on the endpoint, so `mjb_confirm_paused` or
    /// `mjb_safety_reset` cannot acknowledge the pause yet (retry when it has finished). Also
    /// `mjb_set_log_callback` called from inside the log callback.
    MJB_REASON_UNRESOLVED_NATIVE_WORK = 23,
    /// `mjb_confirm_paused` or `mjb_safety_reset` on an endpoint with no stop latched.
    MJB_REASON_NOT_STOPPED = 24,
    /// A restore's native state write failed (the guarded setter raised a MuJoCo error or
    /// reported a failure); with `MJB_ROLLED_BACK` the prior state was put back and proven.
    MJB_REASON_SETTER_FAILED = 25,
    /// A restore's state setter returned a status that is neither completion nor an engine
    /// error, so what it did is unknown: `MJB_UNKNOWN`, the endpoint is fenced.
    MJB_REASON_SETTER_UNEXPECTED_COMPLETION = 26,
    /// A restored state did not read back bit for bit equal to the document; with
    /// `MJB_ROLLED_BACK` the prior state was put back and proven.
    MJB_REASON_VERIFICATION_MISMATCH = 27,
    /// After a failed step or restore, putting the prior state back failed or did not read
    /// back bit for bit: `MJB_UNKNOWN`, the endpoint is fenced.
    MJB_REASON_ROLLBACK_UNPROVEN = 28,
    /// MuJoCo raised an error (`mju_error`) inside a guarded call.
    MJB_REASON_ENGINE_ERROR = 29,
    /// The handle was closed.
    MJB_REASON_CLOSED = 30,
    /// A required pointer was NULL.
    MJB_REASON_NULL_ARGUMENT = 31,
    /// Input bytes are not UTF-8.
    MJB_REASON_INVALID_UTF8 = 32,
    /// The handle was never issued by this library.
    MJB_REASON_FOREIGN_HANDLE = 33,
    /// MuJoCo could not load or compile the model; its message is in `mjb_last_error`.
    MJB_REASON_MODEL_LOAD = 34,
    /// An array's length does not match the model's dimension.
    MJB_REASON_DIMENSION = 35,
    /// The engine reset the simulation after a NaN/Inf (its warning counters moved).
    MJB_REASON_ENGINE_RESET = 36,
    /// A Rust panic was caught.
    MJB_REASON_PANIC = 37,
    /// An integer-coded value of the native state outside its native domain (a HISTORY
    /// ring-buffer cursor that is not an integer in its buffer's range).
    MJB_REASON_STATE_DOMAIN = 38,
    /// The tick would pass its maximum (u64); refused before any engine step.
    MJB_REASON_TICK_OVERFLOW = 39,
    /// A world document's `state_hash` is not the hash of its `world` (edited or corrupted).
    MJB_REASON_STATE_HASH = 40,
    /// No object of that kind has that name.
    MJB_REASON_UNKNOWN_NAME = 41,
    /// The running engine lacks what the call needs (plugins before MuJoCo 2.3.1, equality
    /// activation in mjData before 3.0).
    MJB_REASON_UNSUPPORTED = 42,
    /// MuJoCo could not load a plugin library; its message is in `mjb_last_error`.
    MJB_REASON_PLUGIN_LOAD = 43,
    /// The field is not in the endpoint's frame selection (config `"frame"`).
    MJB_REASON_NOT_IN_FRAME = 44,
    /// The call's precondition (`mjb_expect`: the tick, the model configuration or the last
    /// frame's publication number the caller saw) no longer holds: another call moved the
    /// endpoint on first. Nothing was done.
    MJB_REASON_PRECONDITION = 45,
    /// A world document's `model_fingerprint` is not the endpoint's model: another model,
    /// even with the same dimensions (or the same file compiled by another engine build).
    MJB_REASON_MODEL_FINGERPRINT = 46,
    /// The restore point was captured on (or read for) another endpoint.
    MJB_REASON_OTHER_ENDPOINT = 47,
}

abi_enum!(mjb_outcome {
    MJB_OK,
    MJB_REJECTED,
    MJB_ROLLED_BACK,
    MJB_UNKNOWN,
    MJB_FENCED,
    MJB_INVALID_ARGUMENT,
    MJB_PANIC,
});

impl mjb_outcome {
    /// Every outcome, in value order.
    pub fn all() -> impl Iterator<Item = mjb_outcome> {
        Self::ALL.iter().copied()
    }
}

abi_enum!(mjb_reason {
    MJB_REASON_NONE,
    MJB_REASON_MALFORMED_JSON,
    MJB_REASON_TOO_LARGE,
    MJB_REASON_TOO_MANY_VALUES,
    MJB_REASON_UNKNOWN_FIELD,
    MJB_REASON_MISSING_FIELD,
    MJB_REASON_DUPLICATE_FIELD,
    MJB_REASON_WRONG_TYPE,
    MJB_REASON_NOT_AN_INTEGER,
    MJB_REASON_NOT_FINITE,
    MJB_REASON_OUT_OF_RANGE,
    MJB_REASON_PROFILE,
    MJB_REASON_ENGINE,
    MJB_REASON_DESCRIPTOR,
    MJB_REASON_CONFIGURATION,
    MJB_REASON_SIGNATURE,
    MJB_REASON_SIZE,
    MJB_REASON_EQ_ACTIVE_DOMAIN,
    MJB_REASON_PUBLIC_FIELD_MISMATCH,
    MJB_REASON_SEED,
    MJB_REASON_READ_ONLY_FIELD,
    MJB_REASON_BUSY,
    MJB_REASON_STOP_LATCHED,
    MJB_REASON_UNRESOLVED_NATIVE_WORK,
    MJB_REASON_NOT_STOPPED,
    MJB_REASON_SETTER_FAILED,
    MJB_REASON_SETTER_UNEXPECTED_COMPLETION,
    MJB_REASON_VERIFICATION_MISMATCH,
    MJB_REASON_ROLLBACK_UNPROVEN,
    MJB_REASON_ENGINE_ERROR,
    MJB_REASON_CLOSED,
    MJB_REASON_NULL_ARGUMENT,
    MJB_REASON_INVALID_UTF8,
    MJB_REASON_FOREIGN_HANDLE,
    MJB_REASON_MODEL_LOAD,
    MJB_REASON_DIMENSION,
    MJB_REASON_ENGINE_RESET,
    MJB_REASON_PANIC,
    MJB_REASON_STATE_DOMAIN,
    MJB_REASON_TICK_OVERFLOW,
    MJB_REASON_STATE_HASH,
    MJB_REASON_UNKNOWN_NAME,
    MJB_REASON_UNSUPPORTED,
    MJB_REASON_PLUGIN_LOAD,
    MJB_REASON_NOT_IN_FRAME,
    MJB_REASON_PRECONDITION,
    MJB_REASON_MODEL_FINGERPRINT,
    MJB_REASON_OTHER_ENDPOINT,
});

pub use mjb_outcome as Outcome;
pub use mjb_reason as Reason;

/// Why a call did not simply succeed: the outcome, its reason, where in the input (a JSON
/// pointer, RFC 6901) and a human message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub outcome: Outcome,
    pub reason: Reason,
    pub pointer: Option<String>,
    pub message: String,
}

impl Refusal {
    pub fn new(outcome: Outcome, reason: Reason, message: impl Into<String>) -> Self {
        Refusal {
            outcome,
            reason,
            pointer: None,
            message: message.into(),
        }
    }

    /// A refusal before any effect.
    pub fn rejected(reason: Reason, message: impl Into<String>) -> Self {
        Self::new(Outcome::MJB_REJECTED, reason, message)
    }

    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.outcome.name(), self.reason.name())?;
        if let Some(p) = &self.pointer {
            write!(f, " at {p:?}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Refusal {}
