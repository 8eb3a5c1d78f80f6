//! The [`Tool`] trait, the [`ToolContext`] a tool runs with, and [`FnTool`] for tools defined at
//! run time.

use crate::cancel::CancelSignal;
use crate::envelope::Outcome;
use crate::error::ToolError;
use crate::shared_str::SharedStr;
use crate::spec::ToolSpec;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// What a tool function produced: plain data, or a full envelope (partial results, instructions).
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // one per call, moved once: boxing buys nothing
pub enum ToolOutput {
    /// Becomes `data` of a `success` envelope.
    Data(Value),
    /// Used as is (meta is filled in by the runtime).
    Outcome(Outcome),
}

/// What [`Tool::call`] returns.
pub type ToolResult = Result<ToolOutput, ToolError>;
/// The future [`Tool::call`] returns.
pub type ToolFuture = BoxFuture<'static, ToolResult>;

/// One call the model (or a host) asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id (from the provider, or generated). A [`SharedStr`]: an id of up to 23 bytes is
    /// kept inline, and handing it to the context and the envelope copies it.
    #[serde(default)]
    pub id: SharedStr,
    /// The tool name as the model wrote it (inline up to 23 bytes, like the id).
    pub name: SharedStr,
    /// The arguments as the model wrote them (any JSON, validated before use).
    #[serde(default)]
    pub arguments: Value,
}

impl ToolCall {
    /// A call with an id.
    pub fn new(id: impl Into<SharedStr>, name: impl Into<SharedStr>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// Something that can run a call to the end and answer with an envelope: the registry, or a
/// runtime with its policies. Tools reach it through [`ToolContext::call_tool`] to compose.
pub trait Invoker: Send + Sync {
    /// Runs `call` within the step and session of `parent` and returns its envelope.
    fn invoke_call(&self, call: ToolCall, parent: &ToolContext) -> BoxFuture<'static, Outcome>;
}

/// What a tool receives besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    /// The id of this call (shared with the envelope's `meta.call_id`: cloning it is cheap).
    pub call_id: SharedStr,
    /// The tool's name (shared with the registry's entry and `meta.tool`).
    pub tool: SharedStr,
    /// The conversation or session this call belongs to, if any.
    pub session_id: Option<String>,
    /// The agent step (model turn) this call belongs to.
    pub step: u32,
    /// Whether a person approved this call (confirmation gate).
    pub approved: bool,
    /// Cancelled at the deadline or when the host cancels the run; long tools should watch it
    /// ([`ToolContext::cancelled`], or [`CancelSignal::child_token`] for a tokio-util token).
    pub cancel: CancelSignal,
    invoker: Option<Arc<dyn Invoker>>,
    states: Option<Arc<crate::state::States>>,
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool", &self.tool)
            .field("session_id", &self.session_id)
            .field("step", &self.step)
            .field("approved", &self.approved)
            .field("cancelled", &self.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl Default for ToolContext {
    fn default() -> Self {
        ToolContext::new("call-0", SharedStr::default())
    }
}

impl ToolContext {
    /// A context for one call, not approved, with a signal of its own.
    pub fn new(call_id: impl Into<SharedStr>, tool: impl Into<SharedStr>) -> Self {
        ToolContext::for_call(call_id, tool, CancelSignal::new())
    }

    /// A context for call `call_id` of `tool` that watches `cancel` (a [`CancelSignal`], or a
    /// tokio-util token: the context's signal is then cancelled with it).
    pub fn for_call(
        call_id: impl Into<SharedStr>,
        tool: impl Into<SharedStr>,
        cancel: impl Into<CancelSignal>,
    ) -> Self {
        ToolContext {
            call_id: call_id.into(),
            tool: tool.into(),
            session_id: None,
            step: 0,
            approved: false,
            cancel: cancel.into(),
            invoker: None,
            states: None,
        }
    }

    /// Gives the call its registry's state values ([`crate::State`]).
    pub fn with_states(mut self, states: Arc<crate::state::States>) -> Self {
        self.states = Some(states);
        self
    }

    /// The registry's state of type `T`, if the host registered one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.states.as_ref()?.get::<T>()
    }

    /// Sets the invoker used by [`ToolContext::call_tool`].
    pub fn with_invoker(mut self, invoker: Arc<dyn Invoker>) -> Self {
        self.invoker = Some(invoker);
        self
    }

    /// The invoker, if the host gave one.
    pub fn invoker(&self) -> Option<&Arc<dyn Invoker>> {
        self.invoker.as_ref()
    }

    /// Whether the call was cancelled (deadline or host).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }

    /// Calls another tool through the same runtime (same step budgets, session and policies).
    /// Without an invoker the answer is an `INTERNAL` envelope.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Outcome {
        let call = ToolCall::new(format!("{}.{}", self.call_id, name), name, arguments);
        match &self.invoker {
            Some(inv) => inv.invoke_call(call, self).await,
            None => Outcome::from_error(ToolError::internal(
                "ToolContext::call_tool used without an invoker",
            )),
        }
    }
}

/// A tool: a spec plus an async function from validated JSON arguments to a result.
///
/// `#[tool]` implements it for Rust functions; [`FnTool`] for closures; MCP imports for remote
/// tools. Implementations may assume `args` already validates against `spec().parameters`.
pub trait Tool: Send + Sync + 'static {
    /// The advertised spec.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool. `args` has been validated against the spec's schema.
    fn call(&self, args: Value, ctx: ToolContext) -> ToolFuture;

    /// Runs the tool with arguments that may be shared (a retry policy keeps a handle on them
    /// to run the call again). The default takes the value when no one else holds it and clones
    /// it otherwise; `#[tool]` overrides it to deserialize straight from the shared value, so a
    /// retryable call never deep-copies its arguments.
    fn call_shared(&self, args: Arc<Value>, ctx: ToolContext) -> ToolFuture {
        let args = Arc::try_unwrap(args).unwrap_or_else(|shared| Value::clone(&shared));
        self.call(args, ctx)
    }

    /// Runs the tool with arguments it only reads where it is called: the caller keeps them
    /// (a call that may run again needs no handle on them then). The default clones them;
    /// `#[tool]` overrides it to deserialize straight from the reference, and says so with
    /// [`Tool::borrows_args`].
    fn call_ref(&self, args: &Value, ctx: ToolContext) -> ToolFuture {
        self.call(args.clone(), ctx)
    }

    /// Whether [`Tool::call_ref`] costs no copy of the arguments (it reads them before its
    /// future is made). The default is `false`: callers then share the arguments instead.
    fn borrows_args(&self) -> bool {
        false
    }

    /// Whether [`Tool::call_json`] may take calls (asked once, when the tool is registered).
    /// The default is `false`; `#[tool]` answers `true` when every parameter's constraints are
    /// checked exactly on its typed value ([`crate::raw_args`]).
    fn takes_json(&self) -> bool {
        false
    }

    /// Runs the tool from its arguments' JSON text, deserialized straight into the tool's
    /// typed arguments with the schema's constraints checked on the typed values, no `Value`
    /// in between; or `None` (the context is dropped, nothing ran) when it cannot: the caller
    /// then parses the text, validates it against the schema and calls [`Tool::call_ref`] or
    /// [`Tool::call`] as usual, which report what is wrong. An implementation must answer
    /// `Some` only for arguments the schema admits without coercion, and run then exactly as
    /// the validated call would. The default answers `None`.
    ///
    /// ```
    /// use toolwright_core::{FnTool, Tool, ToolContext, ToolOutput, ToolSpec};
    /// // A closure's tool takes a `Value`: it never takes raw JSON (`#[tool]` functions may).
    /// let t = FnTool::new(ToolSpec::new("noop", "Does nothing.", serde_json::json!({})),
    ///     |_, _| async { Ok(ToolOutput::Data(serde_json::json!(null))) });
    /// assert!(!t.takes_json());
    /// assert!(t.call_json("{}", ToolContext::new("c1", "noop")).is_none());
    /// ```
    fn call_json(&self, args: &str, ctx: ToolContext) -> Option<ToolFuture> {
        let _ = (args, ctx);
        None
    }

    /// Whether the tool looks at its [`ToolContext`] beyond its call id, name, session, step,
    /// approval and cancellation signal: the registry's state ([`ToolContext::state`]) or
    /// [`ToolContext::call_tool`]. When it answers `false` (what `#[tool]` answers for a
    /// function with neither a context nor a [`State`](crate::State) parameter) the runtime may
    /// hand it a context without them, and spares the call their reference counts. The default
    /// is `true`, which is always correct.
    fn uses_context(&self) -> bool {
        true
    }

    /// What would happen if the call ran, for the confirmation gate. The default describes the
    /// call with its arguments.
    fn preview(&self, args: &Value) -> Value {
        serde_json::json!({
            "action": format!("run {}", self.spec().name),
            "arguments": args,
        })
    }
}

type DynHandler = dyn Fn(Value, ToolContext) -> ToolFuture + Send + Sync;

/// A tool defined at run time from a spec and a closure (tools that come from elsewhere).
///
/// ```
/// use toolwright_core::{FnTool, ToolSpec, ToolOutput};
/// let spec = ToolSpec::new("echo", "Echo the text back. Use this to test tool calling.",
///     serde_json::json!({"type":"object","properties":{"text":{"type":"string"}},
///                        "required":["text"],"additionalProperties":false}));
/// let tool = FnTool::new(spec, |args, _ctx| async move { Ok(ToolOutput::Data(args["text"].clone())) });
/// # let _ = tool;
/// ```
pub struct FnTool {
    spec: ToolSpec,
    handler: Arc<DynHandler>,
}

impl FnTool {
    /// Wraps an async closure.
    pub fn new<F, Fut>(spec: ToolSpec, f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ToolResult> + Send + 'static,
    {
        FnTool {
            spec,
            handler: Arc::new(move |args, ctx| Box::pin(f(args, ctx))),
        }
    }
}

impl fmt::Debug for FnTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.spec.name)
            .finish()
    }
}

impl Tool for FnTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: Value, ctx: ToolContext) -> ToolFuture {
        (self.handler)(args, ctx)
    }
}

/// A tool known only by its definition (imported from a definitions file): calls are validated
/// against its schema, then answered without executing anything.
#[derive(Debug, Clone)]
pub struct DefinitionOnly {
    spec: ToolSpec,
}

impl DefinitionOnly {
    /// Wraps a spec.
    pub fn new(spec: ToolSpec) -> Self {
        DefinitionOnly { spec }
    }
}

impl Tool for DefinitionOnly {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: Value, _ctx: ToolContext) -> ToolFuture {
        let name = self.spec.name.clone();
        Box::pin(async move {
            Ok(ToolOutput::Outcome(
                Outcome::success(serde_json::json!({"validated": true, "arguments": args}))
                    .with_message(format!(
                        "The call to {name} is valid; it was not executed (external definition)."
                    ))
                    .with_instruction(
                        "This tool has no implementation here: answer from the arguments you chose.",
                    ),
            ))
        })
    }
}
