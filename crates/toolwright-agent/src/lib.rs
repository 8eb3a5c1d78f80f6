//! toolwright-agent: LLM providers and the agent loop.
//!
//! - [`Provider`]: one model turn (messages + tool definitions → text and/or tool calls, token
//!   usage). Implementations: `providers::openai` (OpenAI-compatible Chat Completions, feature
//!   `openai`), `providers::anthropic` (Messages, feature `anthropic`; both on by default, and
//!   only they pull in the HTTP client), [`providers::prompted`] (prompted JSON for models
//!   without native tools) and [`providers::scripted`] (record/replay for tests). The embedded
//!   llama.cpp model is another crate's provider (`toolwright-local`), and choosing a provider
//!   from flags and the environment is the host's business (the CLI's).
//! - [`Agent`]: the loop. Ask → run the calls through the runtime (in parallel) → give the model
//!   the envelopes → repeat until an answer or `max_steps`; or the naive `plan-execute` baseline.
//!   Every run returns a [`Trace`] (messages, calls with envelopes, timings, tokens).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use serde_json::json;
//! use toolwright_agent::{Agent, AgentConfig, Reply, StopReason};
//! use toolwright_agent::providers::scripted::ScriptedProvider;
//! use toolwright_core::{FnTool, Registry, ToolCall, ToolOutput, ToolSpec};
//! use toolwright_runtime::Runtime;
//!
//! let reg = Registry::new();
//! reg.register(FnTool::new(
//!     ToolSpec::new("add", "Add two integers. Use this for sums.", json!({"type": "object",
//!         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!         "required": ["a", "b"], "additionalProperties": false})),
//!     |args, _| async move { Ok(ToolOutput::Data(json!(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)))) },
//! )).unwrap();
//! let provider = ScriptedProvider::from_replies(vec![
//!     Reply::calls(vec![ToolCall::new("c1", "add", json!({"a": 2, "b": 3}))]),
//!     Reply::text("2 + 3 = 5"),
//! ]);
//! let mut agent = Agent::new(Arc::new(provider), Runtime::new(Arc::new(reg)), AgentConfig::default());
//! let trace = agent.run_trace("What is 2 + 3?").await;
//! assert_eq!(trace.stop, StopReason::Answered);
//! assert_eq!(trace.calls[0].envelope.data, Some(json!(5)));
//! assert_eq!(trace.answer.as_deref(), Some("2 + 3 = 5"));
//! # });
//! ```

pub mod agent;
pub mod builder;
pub mod http;
pub mod lenient;
pub mod message;
pub mod prompt;
pub mod provider;
pub mod providers;
pub mod routing;
mod telemetry;

pub use agent::{
    Agent, AgentConfig, AgentEvent, CallRecord, Mode, Observer, StepRecord, StopReason, Trace,
};
pub use builder::{AgentBuilder, AgentError, AgentStreamEvent, Answer};
pub use http::HttpConfig;
pub use message::{Message, Reply, Role, Usage};
pub use provider::{Candidate, Provider, ProviderError, ProviderInfo, Secret, Turn};
pub use routing::{Ranker, Routing};
