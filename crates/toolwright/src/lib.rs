//! toolwright: the tool layer for LLM agents.
//!
//! - `#[tool]` turns a documented Rust function into a [`Tool`] with an exact JSON Schema.
//! - Every call is validated against that schema and answers with one [`Outcome`] envelope.
//! - The runtime (feature `runtime`, on by default) adds timeouts, retry budgets, idempotency,
//!   confirmation gates and fallbacks around the same contract.
//!
//! ```
//! use toolwright::prelude::*;
//!
//! /// Add two numbers.
//! ///
//! /// Use this when the user asks for a sum.
//! ///
//! /// # Arguments
//! /// * `a` - The first number
//! /// * `b` - The second number
//! #[tool(side_effects = "none")]
//! fn add(a: f64, b: f64) -> Result<f64, ToolError> {
//!     Ok(a + b)
//! }
//!
//! let spec = AddTool.spec();
//! assert_eq!(spec.name, "add");
//! assert_eq!(spec.parameters["required"], serde_json::json!(["a", "b"]));
//! ```

pub use toolwright_core::*;
pub use toolwright_macros::tool;

#[cfg(feature = "runtime")]
pub use toolwright_runtime as runtime;

#[cfg(feature = "catalog")]
pub use toolwright_catalog as catalog;

#[cfg(feature = "agent")]
pub use toolwright_agent as agent;

#[cfg(feature = "mcp")]
pub use toolwright_mcp as mcp;

/// schemars, re-exported so that `#[derive(JsonSchema)]` argument types need no direct
/// dependency of their own (`use toolwright::schemars::JsonSchema;`).
pub use toolwright_core::__private::schemars;

/// The names most tool and agent code needs.
pub mod prelude {
    #[cfg(feature = "agent")]
    pub use toolwright_agent::{Agent, AgentBuilder, AgentError, AgentStreamEvent, Answer};
    pub use toolwright_core::{
        ErrorCode, FnTool, Outcome, Registry, SideEffects, Status, Tool, ToolCall, ToolContext,
        ToolError, ToolSpec,
    };
    pub use toolwright_macros::tool;
    #[cfg(feature = "runtime")]
    pub use toolwright_runtime::Runtime;
}

/// The README's examples, compiled and run as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
