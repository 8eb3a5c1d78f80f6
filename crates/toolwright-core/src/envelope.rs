//! The [`Outcome`] envelope: what the model receives for every call.

use crate::error::{ErrorCode, ToolError};
use crate::shared_str::SharedStr;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod json;

/// The overall result of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool ran and answered.
    Success,
    /// The tool answered with part of the result (truncated, or some items failed).
    Partial,
    /// The call failed; `error` says why.
    Error,
    /// The tool did not run: a person has to approve it first.
    NeedsConfirmation,
}

impl Status {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::Partial => "partial",
            Status::Error => "error",
            Status::NeedsConfirmation => "needs_confirmation",
        }
    }
}

/// How an over-long result was shortened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncation {
    /// Items (or bytes, for strings) in the full result.
    pub total: usize,
    /// Items (or bytes) kept.
    pub showing: usize,
    /// JSON pointer of the shortened array or string within `data`.
    pub path: String,
}

/// One lenient conversion applied to the arguments before validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coercion {
    /// JSON pointer of the converted value.
    pub path: String,
    /// The value as received.
    pub from: Value,
    /// The value used.
    pub to: Value,
}

/// Facts about the call itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The tool's name (as called; empty if the name was unknown and empty). Shared with the
    /// registry's entry and the tool's context: cloning it is cheap.
    pub tool: SharedStr,
    /// The call id from the model or the host (shared with the tool's context).
    pub call_id: SharedStr,
    /// Wall time of the call, in milliseconds.
    pub duration_ms: u64,
    /// Which attempt this was within the step's budget for the tool (1-based).
    pub attempt: u32,
    /// Attempts still allowed in this step.
    pub attempts_left: u32,
    /// Whether the result was replayed from the idempotency store instead of running the tool.
    pub replayed: bool,
    /// Set when the result was cut to fit the output budget.
    pub truncated: Option<Truncation>,
    /// Lenient conversions applied to the arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coerced: Vec<Coercion>,
    /// Set when a fallback tool answered: the name of the tool that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_from: Option<String>,
    /// For `needs_confirmation`: the id a host approves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// Automatic retries the runtime made for transient errors before this answer.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u32,
    /// Set on a `TIMEOUT` whose work could not be stopped (a sync body still running on its
    /// thread): its effect may still happen, so it is not retried automatically and an
    /// idempotency key it holds stays reserved until its lease ends.
    #[serde(default, skip_serializing_if = "is_false")]
    pub still_running: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The structured result of every tool call, success or failure.
///
/// `status` and `error` are private: an `Outcome` is made by its constructors
/// ([`Outcome::success`], [`Outcome::partial`], [`Outcome::from_error`],
/// [`Outcome::needs_confirmation`]), so `error` is present exactly when the status is `error`,
/// and an envelope read from the wire that breaks this is refused ([`EnvelopeError`]).
///
/// ```
/// use toolwright_core::{Outcome, Status, ToolError};
/// let ok = Outcome::success(serde_json::json!({"result": 14}));
/// assert_eq!(ok.status(), Status::Success);
/// let err = Outcome::from_error(ToolError::not_found("No such user.", "List users first."));
/// assert_eq!(err.status(), Status::Error);
/// let wire = serde_json::to_value(&err).unwrap();
/// assert_eq!(wire["error"]["code"], "NOT_FOUND");
/// // An error status without its error is not an envelope.
/// let bad = serde_json::json!({"status": "error", "message": "failed"});
/// assert!(serde_json::from_value::<Outcome>(bad).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "WireOutcome")]
pub struct Outcome {
    /// success | partial | error | needs_confirmation.
    status: Status,
    /// One human-readable sentence. A [`SharedStr`]: the runtime's usual sentences (a tool's
    /// "X succeeded.") are made once per tool, and a call copies them without allocating.
    pub message: SharedStr,
    /// The result (or the preview, for `needs_confirmation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// How the model should use this result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// Present exactly when `status` is `error`. Boxed: an envelope moves through every layer
    /// of a call by value, and most calls succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<Box<ToolError>>,
    /// Facts about the call.
    #[serde(default)]
    pub meta: Meta,
}

/// An envelope as it arrives on the wire, before its invariant is checked.
#[derive(Deserialize)]
struct WireOutcome {
    status: Status,
    message: SharedStr,
    #[serde(default)]
    data: Option<Value>,
    #[serde(default)]
    instruction: Option<String>,
    #[serde(default)]
    error: Option<ToolError>,
    #[serde(default)]
    meta: Meta,
}

/// Why an envelope read from the wire was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeError {
    /// `status` is `error` and there is no `error` object.
    MissingError,
    /// An `error` object came with another status.
    UnexpectedError(Status),
}

impl std::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EnvelopeError::MissingError => {
                write!(
                    f,
                    "an envelope with status `error` must carry an `error` object"
                )
            }
            EnvelopeError::UnexpectedError(s) => write!(
                f,
                "an envelope with status `{}` must not carry an `error` object",
                s.as_str()
            ),
        }
    }
}

impl std::error::Error for EnvelopeError {}

impl TryFrom<WireOutcome> for Outcome {
    type Error = EnvelopeError;

    fn try_from(w: WireOutcome) -> Result<Self, EnvelopeError> {
        match (w.status, &w.error) {
            (Status::Error, None) => return Err(EnvelopeError::MissingError),
            (Status::Error, Some(_)) => {}
            (s, Some(_)) => return Err(EnvelopeError::UnexpectedError(s)),
            (_, None) => {}
        }
        Ok(Outcome {
            status: w.status,
            message: w.message,
            data: w.data,
            instruction: w.instruction,
            error: w.error.map(Box::new),
            meta: w.meta,
        })
    }
}

impl Outcome {
    /// A successful result.
    pub fn success(data: Value) -> Self {
        Outcome {
            status: Status::Success,
            message: SharedStr::default(),
            data: Some(data),
            instruction: None,
            error: None,
            meta: Meta::default(),
        }
    }

    /// A partial result with a sentence saying what is missing.
    pub fn partial(data: Value, message: impl Into<SharedStr>) -> Self {
        Outcome {
            status: Status::Partial,
            message: message.into(),
            data: Some(data),
            instruction: None,
            error: None,
            meta: Meta::default(),
        }
    }

    /// A failed call.
    pub fn from_error(error: ToolError) -> Self {
        Outcome {
            status: Status::Error,
            message: SharedStr::from(error.message.as_str()),
            data: None,
            instruction: None,
            error: Some(Box::new(error)),
            meta: Meta::default(),
        }
    }

    /// A call that waits for a person's approval; `preview` says what would happen.
    pub fn needs_confirmation(preview: Value, approval_id: impl Into<String>) -> Self {
        let approval_id = approval_id.into();
        Outcome {
            status: Status::NeedsConfirmation,
            message: SharedStr::from_static(
                "This action needs a person's approval before it runs; nothing was done yet.",
            ),
            data: Some(preview),
            instruction: Some(
                "Show the preview to the user and ask them to approve; do not call the tool again \
                 with a confirmation argument, it cannot approve itself."
                    .to_string(),
            ),
            error: None,
            meta: Meta {
                approval_id: Some(approval_id),
                ..Meta::default()
            },
        }
    }

    /// Sets the message.
    pub fn with_message(mut self, message: impl Into<SharedStr>) -> Self {
        self.message = message.into();
        self
    }

    /// Sets the instruction for the model.
    pub fn with_instruction(mut self, instruction: impl Into<String>) -> Self {
        self.instruction = Some(instruction.into());
        self
    }

    /// success | partial | error | needs_confirmation.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Why the call failed: present exactly when [`Outcome::status`] is `error`.
    pub fn error(&self) -> Option<&ToolError> {
        self.error.as_deref()
    }

    /// The error, to amend (its retryability, suggestion...); the status stays `error`.
    pub fn error_mut(&mut self) -> Option<&mut ToolError> {
        self.error.as_deref_mut()
    }

    /// The error, when the call failed.
    pub fn into_error(self) -> Option<ToolError> {
        self.error.map(|e| *e)
    }

    /// Turns a successful outcome into a partial one (a result that was cut); other statuses
    /// stay as they are.
    pub fn mark_partial(&mut self) {
        if self.status == Status::Success {
            self.status = Status::Partial;
        }
    }

    /// The error code, when the call failed.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(|e| e.code)
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.status == Status::Error
    }

    /// The envelope as a JSON value.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_wire_envelope_that_breaks_the_invariant_is_refused() {
        let missing = json!({"status": "error", "message": "failed"});
        let e = serde_json::from_value::<Outcome>(missing).unwrap_err();
        assert!(e.to_string().contains("must carry an `error`"), "{e}");
        let stray = json!({"status": "success", "message": "ok",
            "error": {"code": "INTERNAL", "message": "x", "suggestion": "y", "retryable": false}});
        let e = serde_json::from_value::<Outcome>(stray).unwrap_err();
        assert!(e.to_string().contains("`success` must not carry"), "{e}");
    }

    #[test]
    fn every_constructor_round_trips_byte_for_byte() {
        let outs = [
            Outcome::success(json!({"a": 1})),
            Outcome::partial(json!([1]), "cut"),
            Outcome::from_error(ToolError::not_found("No such user.", "List users first.")),
            Outcome::needs_confirmation(json!({"path": "x"}), "approve-x"),
        ];
        for o in outs {
            let text = serde_json::to_string(&o).unwrap();
            let back: Outcome = serde_json::from_str(&text).unwrap();
            assert_eq!(back, o);
            assert_eq!(serde_json::to_string(&back).unwrap(), text);
            assert_eq!(back.error().is_some(), back.status() == Status::Error);
        }
    }

    #[test]
    fn only_success_becomes_partial() {
        let mut ok = Outcome::success(json!(1));
        ok.mark_partial();
        assert_eq!(ok.status(), Status::Partial);
        let mut err = Outcome::from_error(ToolError::internal("x"));
        err.mark_partial();
        assert_eq!(err.status(), Status::Error);
        assert!(err.error().is_some());
    }
}
