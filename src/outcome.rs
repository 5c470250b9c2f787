//! Outcomes and reasons: the stable vocabulary every call answers in, and the refusal record
//! that carries a reason, a JSON pointer and a message up to `mjb_last_error`.

use std::fmt;

abi_enum! {
    /// What happened to the endpoint's native state (`mjb_outcome` in C, the same values).
    pub enum Outcome {
        /// The call took full effect.
        Ok = "MJB_OK",
        /// Refused before any effect: native state, tick, stop history and fence untouched.
        Rejected = "MJB_REJECTED",
        /// A native effect failed and the prior state was restored and proven by readback.
        RolledBack = "MJB_ROLLED_BACK",
        /// The effect could not be proven either way; the endpoint is now fenced.
        Unknown = "MJB_UNKNOWN",
        /// The endpoint was fenced before this call; mutation or acknowledgement refused.
        Fenced = "MJB_FENCED",
        /// NULL where not allowed, bad UTF-8, or a closed or foreign handle.
        InvalidArgument = "MJB_INVALID_ARGUMENT",
        /// A Rust panic was caught at the boundary; the endpoint is now fenced.
        Panic = "MJB_PANIC",
    }
}

abi_enum! {
    /// The cause inside an outcome (`mjb_reason` in C, the same values; each one's meaning is
    /// documented there and in docs/contract.md).
    pub enum Reason {
        None = "MJB_REASON_NONE",
        MalformedJson = "MJB_REASON_MALFORMED_JSON",
        TooLarge = "MJB_REASON_TOO_LARGE",
        TooManyValues = "MJB_REASON_TOO_MANY_VALUES",
        UnknownField = "MJB_REASON_UNKNOWN_FIELD",
        MissingField = "MJB_REASON_MISSING_FIELD",
        DuplicateField = "MJB_REASON_DUPLICATE_FIELD",
        WrongType = "MJB_REASON_WRONG_TYPE",
        NotAnInteger = "MJB_REASON_NOT_AN_INTEGER",
        NotFinite = "MJB_REASON_NOT_FINITE",
        OutOfRange = "MJB_REASON_OUT_OF_RANGE",
        Profile = "MJB_REASON_PROFILE",
        Engine = "MJB_REASON_ENGINE",
        Descriptor = "MJB_REASON_DESCRIPTOR",
        Configuration = "MJB_REASON_CONFIGURATION",
        Signature = "MJB_REASON_SIGNATURE",
        Size = "MJB_REASON_SIZE",
        EqActiveDomain = "MJB_REASON_EQ_ACTIVE_DOMAIN",
        PublicFieldMismatch = "MJB_REASON_PUBLIC_FIELD_MISMATCH",
        Seed = "MJB_REASON_SEED",
        ReadOnlyField = "MJB_REASON_READ_ONLY_FIELD",
        Busy = "MJB_REASON_BUSY",
        StopLatched = "MJB_REASON_STOP_LATCHED",
        UnresolvedNativeWork = "MJB_REASON_UNRESOLVED_NATIVE_WORK",
        NotStopped = "MJB_REASON_NOT_STOPPED",
        SetterFailed = "MJB_REASON_SETTER_FAILED",
        SetterUnexpectedCompletion = "MJB_REASON_SETTER_UNEXPECTED_COMPLETION",
        VerificationMismatch = "MJB_REASON_VERIFICATION_MISMATCH",
        RollbackUnproven = "MJB_REASON_ROLLBACK_UNPROVEN",
        EngineError = "MJB_REASON_ENGINE_ERROR",
        Closed = "MJB_REASON_CLOSED",
        NullArgument = "MJB_REASON_NULL_ARGUMENT",
        InvalidUtf8 = "MJB_REASON_INVALID_UTF8",
        ForeignHandle = "MJB_REASON_FOREIGN_HANDLE",
        ModelLoad = "MJB_REASON_MODEL_LOAD",
        Dimension = "MJB_REASON_DIMENSION",
        EngineReset = "MJB_REASON_ENGINE_RESET",
        Panic = "MJB_REASON_PANIC",
        StateDomain = "MJB_REASON_STATE_DOMAIN",
        TickOverflow = "MJB_REASON_TICK_OVERFLOW",
        StateHash = "MJB_REASON_STATE_HASH",
        UnknownName = "MJB_REASON_UNKNOWN_NAME",
        Unsupported = "MJB_REASON_UNSUPPORTED",
        PluginLoad = "MJB_REASON_PLUGIN_LOAD",
        NotInFrame = "MJB_REASON_NOT_IN_FRAME",
        Precondition = "MJB_REASON_PRECONDITION",
        ModelFingerprint = "MJB_REASON_MODEL_FINGERPRINT",
        OtherEndpoint = "MJB_REASON_OTHER_ENDPOINT",
        ReplayDiverged = "MJB_REASON_REPLAY_DIVERGED",
    }
}

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
        Self::new(Outcome::Rejected, reason, message)
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
