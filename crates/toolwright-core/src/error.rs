//! Error codes, [`ToolError`] and per-field problems.
//!
//! Every error kind and its defaults (retryable? what to suggest?) come from one table, the
//! `error_codes!` invocation below, so adding a code cannot miss a case.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $wire:literal, retryable = $retry:expr, suggestion = $sugg:literal; )*) => {
        /// The machine-readable kind of a failed call. The wire form is `SCREAMING_SNAKE_CASE`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ErrorCode {
            $( $(#[$doc])* #[serde(rename = $wire)] $variant, )*
        }

        impl ErrorCode {
            /// Every code, in table order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The wire string, e.g. `"VALIDATION_ERROR"`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $wire,)* }
            }

            /// Whether a model may retry after this error unless the tool says otherwise.
            pub fn default_retryable(self) -> bool {
                match self { $(ErrorCode::$variant => $retry,)* }
            }

            /// What the model should do, when the tool gave no better suggestion.
            pub fn default_suggestion(self) -> &'static str {
                match self { $(ErrorCode::$variant => $sugg,)* }
            }

            /// Parses a wire string.
            pub fn parse(s: &str) -> Option<ErrorCode> {
                match s { $($wire => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

error_codes! {
    /// Arguments break the schema or a validator.
    Validation = "VALIDATION_ERROR", retryable = true,
        suggestion = "Fix the arguments listed in `fields` and call the tool again.";
    /// No tool by that name.
    UnknownTool = "UNKNOWN_TOOL", retryable = true,
        suggestion = "Call one of the available tools by its exact name.";
    /// The call was well formed but the thing does not exist.
    NotFound = "NOT_FOUND", retryable = false,
        suggestion = "Do not repeat the same call; change the arguments or ask the user.";
    /// Not allowed (sandbox, policy).
    PermissionDenied = "PERMISSION_DENIED", retryable = false,
        suggestion = "Stop and tell the user that this action is not allowed.";
    /// An upstream limit was hit.
    RateLimited = "RATE_LIMITED", retryable = true,
        suggestion = "Wait for the indicated time before calling again.";
    /// A backend the tool needs is down.
    DependencyUnavailable = "DEPENDENCY_UNAVAILABLE", retryable = false,
        suggestion = "Do not retry blindly; use another tool or tell the user the service is unavailable.";
    /// The deadline passed and the tool was cancelled.
    Timeout = "TIMEOUT", retryable = false,
        suggestion = "Try a narrower request, or tell the user the tool timed out.";
    /// An idempotency key was reused with different arguments.
    IdempotencyConflict = "IDEMPOTENCY_CONFLICT", retryable = false,
        suggestion = "Use a new idempotency key for a new operation, or stop.";
    /// The host cancelled the run.
    Cancelled = "CANCELLED", retryable = false,
        suggestion = "Stop: the run was cancelled.";
    /// A bug or panic inside the tool.
    Internal = "INTERNAL", retryable = false,
        suggestion = "Do not retry; tell the user the tool failed.";
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What is wrong with one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    /// A required property is absent.
    MissingRequired,
    /// The value has the wrong JSON type.
    WrongType,
    /// The value is not one of the allowed values.
    NotInEnum,
    /// A number is outside its bounds.
    OutOfRange,
    /// A string is longer than allowed.
    TooLong,
    /// A string is shorter than allowed.
    TooShort,
    /// A string does not match its pattern.
    Pattern,
    /// A property the schema does not know.
    UnknownField,
    /// An array has too many items.
    TooManyItems,
    /// An array has too few items.
    TooFewItems,
    /// Array items are not unique.
    NotUnique,
    /// A string does not match its format.
    InvalidFormat,
    /// None of the alternatives of an `anyOf`/`oneOf` matched.
    NoMatch,
    /// A custom validator or another keyword rejected the value.
    InvalidValue,
}

impl Problem {
    /// The wire string, e.g. `"not_in_enum"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Problem::MissingRequired => "missing_required",
            Problem::WrongType => "wrong_type",
            Problem::NotInEnum => "not_in_enum",
            Problem::OutOfRange => "out_of_range",
            Problem::TooLong => "too_long",
            Problem::TooShort => "too_short",
            Problem::Pattern => "pattern",
            Problem::UnknownField => "unknown_field",
            Problem::TooManyItems => "too_many_items",
            Problem::TooFewItems => "too_few_items",
            Problem::NotUnique => "not_unique",
            Problem::InvalidFormat => "invalid_format",
            Problem::NoMatch => "no_match",
            Problem::InvalidValue => "invalid_value",
        }
    }
}

/// One violation, located by a JSON pointer into the arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldError {
    /// JSON pointer to the offending value (`/role`, `/items/3/name`); `""` is the whole object.
    pub path: String,
    /// The kind of problem.
    pub problem: Problem,
    /// A sentence describing the problem.
    pub message: String,
    /// The value received, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<Value>,
    /// What was expected: a type name, a list of allowed values, a bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// A hint for this field, e.g. the closest valid name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl FieldError {
    /// A field error with no received or expected value.
    pub fn new(path: impl Into<String>, problem: Problem, message: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            problem,
            message: message.into(),
            received: None,
            expected: None,
            hint: None,
        }
    }
}

/// A failed tool call, as a tool returns it and as the envelope carries it (`error`).
///
/// Build one with the constructor for its code:
/// ```
/// use toolwright_core::{ToolError, ErrorCode};
/// let e = ToolError::not_found("No city called Atlantis.", "Ask the user for a real city name.");
/// assert_eq!(e.code, ErrorCode::NotFound);
/// assert!(!e.retryable);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolError {
    /// The kind of error.
    pub code: ErrorCode,
    /// What went wrong, for the model and the user.
    pub message: String,
    /// What to do instead.
    pub suggestion: String,
    /// Whether calling again (with corrected arguments) can help.
    pub retryable: bool,
    /// Per-field violations (validation errors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldError>,
    /// For `RATE_LIMITED`: how long to wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// Internal detail for logs; never serialized to the model.
    #[serde(skip)]
    pub detail: Option<String>,
}

impl ToolError {
    /// An error of `code` with the table's default suggestion and retryability.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            suggestion: code.default_suggestion().to_string(),
            retryable: code.default_retryable(),
            fields: Vec::new(),
            retry_after_ms: None,
            detail: None,
        }
    }

    /// Replaces the suggestion.
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = suggestion.into();
        self
    }

    /// Overrides retryability.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// Attaches field errors.
    pub fn with_fields(mut self, fields: Vec<FieldError>) -> Self {
        self.fields = fields;
        self
    }

    /// Attaches internal detail that is logged but never shown to the model.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// `VALIDATION_ERROR`: the arguments are wrong. Custom validators return this.
    pub fn validation(message: impl Into<String>, suggestion: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::Validation, message).with_suggestion(suggestion)
    }

    /// `UNKNOWN_TOOL`.
    pub fn unknown_tool(message: impl Into<String>, suggestion: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::UnknownTool, message).with_suggestion(suggestion)
    }

    /// `NOT_FOUND`: well formed, but the thing does not exist.
    pub fn not_found(message: impl Into<String>, suggestion: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::NotFound, message).with_suggestion(suggestion)
    }

    /// `PERMISSION_DENIED`.
    pub fn permission_denied(message: impl Into<String>, suggestion: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::PermissionDenied, message).with_suggestion(suggestion)
    }

    /// `RATE_LIMITED`, with the time to wait.
    pub fn rate_limited(message: impl Into<String>, retry_after_ms: u64) -> Self {
        let mut e = ToolError::new(ErrorCode::RateLimited, message)
            .with_suggestion(format!("Wait {retry_after_ms} ms before calling again."));
        e.retry_after_ms = Some(retry_after_ms);
        e
    }

    /// `DEPENDENCY_UNAVAILABLE`: a backend is down.
    pub fn dependency_unavailable(
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) -> Self {
        ToolError::new(ErrorCode::DependencyUnavailable, message).with_suggestion(suggestion)
    }

    /// `TIMEOUT`.
    pub fn timeout(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::Timeout, message)
    }

    /// `IDEMPOTENCY_CONFLICT`.
    pub fn idempotency_conflict(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::IdempotencyConflict, message)
    }

    /// `CANCELLED`.
    pub fn cancelled(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::Cancelled, message)
    }

    /// `INTERNAL`: the message shown is generic; `detail` is kept for logs.
    pub fn internal(detail: impl Into<String>) -> Self {
        ToolError::new(
            ErrorCode::Internal,
            "The tool failed because of an internal error.",
        )
        .with_detail(detail)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<serde_json::Error> for ToolError {
    fn from(e: serde_json::Error) -> Self {
        ToolError::internal(format!("serialization: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_wire_names() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
            let json = serde_json::to_value(code).ok();
            assert_eq!(json, Some(Value::String(code.as_str().into())));
        }
    }

    #[test]
    fn internal_hides_detail() {
        let e = ToolError::internal("index out of bounds at foo.rs:3");
        let s = serde_json::to_string(&e).unwrap_or_default();
        assert!(!s.contains("foo.rs"), "{s}");
        assert!(s.contains("INTERNAL"));
    }
}
