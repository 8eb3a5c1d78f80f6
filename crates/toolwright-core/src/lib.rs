//! The tool contract of toolwright: [`ToolSpec`] (schema + metadata), the [`Tool`] trait,
//! validation and coercion against the advertised schema ([`ArgValidator`]), the [`Outcome`]
//! envelope with [`ErrorCode`]s, and the [`Registry`].
//!
//! Every call answers with an [`Outcome`]; errors are data and a panic in a tool is an
//! `INTERNAL` envelope.

pub mod blocking;
pub mod budget;
pub mod cancel;
pub mod canonical;
pub mod defs;
pub mod envelope;
pub mod error;
pub mod raw_args;
pub mod registry;
pub mod schema;
pub mod shared_str;
pub mod spec;
pub mod state;
pub mod suggest;
pub mod tool;
pub mod validate;

pub use budget::{apply_output_budget, apply_output_budget_in_place, truncate_to_budget};
pub use cancel::CancelSignal;
pub use envelope::{Coercion, EnvelopeError, Meta, Outcome, Status, Truncation};
pub use error::{ErrorCode, FieldError, Problem, ToolError};
pub use registry::{
    CallFacts, CallNames, GuardedCall, Registry, RegistryError, ToolEntry, approval_id,
    called_name, finish, finish_in_place, is_valid_tool_name, run_guarded, run_guarded_shared,
};
pub use shared_str::SharedStr;
pub use spec::{
    DEFAULT_MAX_RETRIES, DEFAULT_OUTPUT_LIMIT_BYTES, RateLimit, SideEffects, ToolMeta, ToolSpec,
};
pub use state::{State, States};
pub use suggest::closest;
pub use tool::{
    DefinitionOnly, FnTool, Invoker, Tool, ToolCall, ToolContext, ToolFuture, ToolOutput,
    ToolResult,
};
pub use validate::{ArgValidator, SchemaError, validation_error_from_fields};

/// Re-exports used by code that `#[tool]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use futures;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use tokio;

    pub use crate::blocking::run_blocking;
    pub use crate::raw_args::{ParamDecl, ParamKind, RawPlan, enum_from_str, is_object_text};
    pub use crate::schema::params_schema;

    /// Turns a join error of a blocking tool into an error (panics become `INTERNAL`).
    pub fn join_error(e: tokio::task::JoinError) -> crate::ToolError {
        if e.is_panic() {
            let text = crate::registry::panic_text(e.into_panic().as_ref());
            tracing::error!(panic = %text, "blocking tool panicked");
            crate::ToolError::internal(format!("panic: {text}"))
        } else {
            crate::ToolError::cancelled("The tool was cancelled.")
        }
    }

    /// Converts what a tool function returned into a [`crate::ToolResult`].
    pub trait IntoToolResult {
        /// The conversion.
        fn into_tool_result(self) -> crate::ToolResult;
    }

    /// Wraps a value that serializes into `data`.
    pub struct Data<T>(pub T);
    /// Wraps a full outcome.
    pub struct Full(pub crate::Outcome);

    impl<T: serde::Serialize> IntoToolResult for Data<T> {
        fn into_tool_result(self) -> crate::ToolResult {
            serde_json::to_value(&self.0)
                .map(crate::ToolOutput::Data)
                .map_err(|e| {
                    crate::ToolError::internal(format!("could not serialize the result: {e}"))
                })
        }
    }

    impl IntoToolResult for Full {
        fn into_tool_result(self) -> crate::ToolResult {
            Ok(crate::ToolOutput::Outcome(self.0))
        }
    }

    /// Stands for a `#[tool]` function's return type `T` while its output schema is looked up:
    /// `(&OutputProbe::<T>::new()).output_schema()` finds [`OutputViaSchema`] when `T`
    /// implements `JsonSchema` and falls back to [`OutputUntyped`] otherwise (autoref
    /// specialization: the macro cannot see trait impls, the compiler can).
    pub struct OutputProbe<T>(std::marker::PhantomData<fn() -> T>);

    impl<T> OutputProbe<T> {
        /// The probe.
        pub fn new() -> Self {
            OutputProbe(std::marker::PhantomData)
        }
    }

    impl<T> Default for OutputProbe<T> {
        fn default() -> Self {
            Self::new()
        }
    }

    /// The output schema of a return type that implements `JsonSchema`.
    pub trait OutputViaSchema {
        /// `T`'s schema when it is an object schema.
        fn output_schema(&self) -> Option<serde_json::Value>;
    }

    impl<T: schemars::JsonSchema> OutputViaSchema for OutputProbe<T> {
        fn output_schema(&self) -> Option<serde_json::Value> {
            crate::schema::output_schema_for::<T>()
        }
    }

    /// No output schema: the return type does not implement `JsonSchema`.
    pub trait OutputUntyped {
        /// Always `None`.
        fn output_schema(&self) -> Option<serde_json::Value>;
    }

    impl<T> OutputUntyped for &OutputProbe<T> {
        fn output_schema(&self) -> Option<serde_json::Value> {
            None
        }
    }

    /// A field error for a custom validator's failure on parameter `name`.
    pub fn validator_failure(
        name: &str,
        received: Option<serde_json::Value>,
        err: crate::ToolError,
    ) -> crate::FieldError {
        crate::FieldError {
            path: format!("/{name}"),
            problem: crate::Problem::InvalidValue,
            message: err.message,
            received,
            expected: None,
            hint: Some(err.suggestion),
        }
    }

    /// A deserialization failure after schema validation passed (schema looser than the type).
    pub fn deserialize_failure(e: serde_json::Error) -> crate::ToolError {
        crate::ToolError::validation(
            format!("Invalid arguments: {e}."),
            "Fix the arguments to match the tool's parameters and call again.",
        )
    }
}
