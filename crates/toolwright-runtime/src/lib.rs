//! The toolwright runtime: runs calls from a [`Registry`] under policies and always answers with
//! an [`Outcome`].
//!
//! The public entry points below are the contract other crates (agent, MCP, CLI) code against:
//! [`Runtime::new`], [`Runtime::registry`], [`Runtime::invoke`], [`Runtime::invoke_batch`] and
//! [`CallOptions`].

use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use toolwright_core::{InvokeOptions, Outcome, Registry, ToolCall};

/// Per-call options a host passes to [`Runtime::invoke`].
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// A person approved this call (confirmation gate).
    pub approved: bool,
    /// Session (conversation) id; scopes derived idempotency keys.
    pub session_id: Option<String>,
    /// Agent step; retry budgets are per (step, tool).
    pub step: u32,
    /// Disable lenient coercion (strict validation only).
    pub strict: bool,
    /// Cancelled by the host to cancel the call.
    pub cancel: Option<CancellationToken>,
}

/// Runs tool calls under the runtime's policies.
#[derive(Debug, Clone)]
pub struct Runtime {
    registry: Arc<Registry>,
}

impl Runtime {
    /// A runtime over `registry` with default policies.
    pub fn new(registry: Arc<Registry>) -> Self {
        Runtime { registry }
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Runs one call and returns its envelope. Never panics.
    pub async fn invoke(&self, call: ToolCall, opts: &CallOptions) -> Outcome {
        let o = InvokeOptions {
            lenient: !opts.strict,
            approved: opts.approved,
            session_id: opts.session_id.clone(),
            step: opts.step,
        };
        self.registry.invoke(call, &o).await
    }

    /// Runs the calls of one model turn; results come back in call order.
    pub async fn invoke_batch(&self, calls: Vec<ToolCall>, opts: &CallOptions) -> Vec<Outcome> {
        let futs = calls.into_iter().map(|c| self.invoke(c, opts));
        futures::future::join_all(futs).await
    }
}
