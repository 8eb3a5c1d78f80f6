//! The [`Registry`]: named tools with compiled validators, and the pieces a call is made of
//! ([`Registry::resolve`], [`ToolEntry::prepare`], [`run_guarded`], [`finish`]).
//!
//! The registry runs no call itself: the one call path, with its policies (the confirmation
//! gate among them), is `toolwright_runtime::Runtime::invoke`, which composes these pieces.

use crate::envelope::{Coercion, Outcome, Status};
use crate::error::ToolError;
use crate::shared_str::SharedStr;
use crate::spec::ToolSpec;
use crate::suggest::closest;
use crate::tool::{Invoker, Tool, ToolCall, ToolContext, ToolOutput};
use crate::validate::ArgValidator;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// A registered tool with its compiled argument validator.
pub struct ToolEntry {
    /// The tool.
    pub tool: Arc<dyn Tool>,
    /// The validator compiled from the tool's advertised schema.
    pub validator: ArgValidator,
    /// The state values of the registry the tool is in (empty until registered).
    pub states: Arc<crate::state::States>,
    /// The tool's name, made once: every call's context and envelope share it.
    name: SharedStr,
    /// What the tool's [`Tool::uses_context`] answered when it was registered.
    uses_context: bool,
    /// "`name` succeeded.", made once: the message of every success that sets none.
    succeeded: SharedStr,
    /// What the tool's [`Tool::borrows_args`] answered when it was registered.
    borrows_args: bool,
    /// What the tool's [`Tool::takes_json`] answered when it was registered.
    takes_json: bool,
    /// What every call asks of the spec, read once.
    facts: CallFacts,
}

/// What the runtime asks of a tool's spec on every call, read once when the entry is made
/// ([`ToolEntry::facts`]): a spec does not change once its tool is registered (its validator
/// is compiled from it then too), and a tool's `spec()` is a call through its vtable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallFacts {
    /// [`ToolSpec::needs_confirmation`].
    pub needs_confirmation: bool,
    /// The spec's `meta.idempotent`.
    pub idempotent: bool,
    /// [`ToolSpec::safe_to_retry`].
    pub safe_to_retry: bool,
    /// The spec has a `meta.rate_limit`.
    pub rate_limited: bool,
    /// The spec names a `meta.fallback`.
    pub has_fallback: bool,
    /// [`ToolSpec::max_retries`].
    pub max_retries: u32,
    /// The spec's `meta.sla_ms`.
    pub sla_ms: Option<u64>,
    /// The spec's `meta.timeout_ms`.
    pub timeout_ms: Option<u64>,
}

impl CallFacts {
    /// The facts of `spec`.
    ///
    /// ```
    /// use toolwright_core::{CallFacts, ToolSpec};
    /// let mut spec = ToolSpec::new("delete_file", "Deletes a file.", serde_json::json!({}));
    /// spec.meta.requires_confirmation = true;
    /// spec.meta.sla_ms = Some(200);
    /// let facts = CallFacts::of(&spec);
    /// assert!(facts.needs_confirmation && !facts.has_fallback);
    /// assert_eq!(facts.sla_ms, Some(200));
    /// ```
    pub fn of(spec: &ToolSpec) -> Self {
        CallFacts {
            needs_confirmation: spec.needs_confirmation(),
            idempotent: spec.meta.idempotent,
            safe_to_retry: spec.safe_to_retry(),
            rate_limited: spec.meta.rate_limit.is_some(),
            has_fallback: spec.meta.fallback.is_some(),
            max_retries: spec.max_retries(),
            sla_ms: spec.meta.sla_ms,
            timeout_ms: spec.meta.timeout_ms,
        }
    }
}

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.tool.spec().name)
            .finish()
    }
}

impl ToolEntry {
    /// Compiles the tool's schema.
    ///
    /// # Errors
    /// The schema is not valid JSON Schema.
    pub fn new(tool: Arc<dyn Tool>) -> Result<Self, RegistryError> {
        let validator = ArgValidator::new(&tool.spec().parameters).map_err(|e| {
            RegistryError::InvalidSchema {
                tool: tool.spec().name.clone(),
                reason: e.to_string(),
            }
        })?;
        let name = SharedStr::from(tool.spec().name.as_str());
        let succeeded = SharedStr::from(sentence(&name, " succeeded."));
        let uses_context = tool.uses_context();
        let borrows_args = tool.borrows_args();
        let takes_json = tool.takes_json();
        let facts = CallFacts::of(tool.spec());
        Ok(ToolEntry {
            tool,
            validator,
            states: Arc::default(),
            name,
            uses_context,
            succeeded,
            borrows_args,
            takes_json,
            facts,
        })
    }

    /// The tool's spec.
    pub fn spec(&self) -> &ToolSpec {
        self.tool.spec()
    }

    /// What every call asks of the spec, read when the entry was made.
    pub fn facts(&self) -> &CallFacts {
        &self.facts
    }

    /// The tool's name (the spec's), shared: cloning it does not allocate.
    pub fn name(&self) -> &SharedStr {
        &self.name
    }

    /// Whether the tool runs from a reference to its arguments without copying them
    /// ([`Tool::borrows_args`], asked once when the entry was made).
    pub fn borrows_args(&self) -> bool {
        self.borrows_args
    }

    /// Whether the tool may run from its arguments' JSON text ([`Tool::takes_json`], asked
    /// once when the entry was made).
    pub fn takes_json(&self) -> bool {
        self.takes_json
    }

    /// The message of a success whose tool set none ("`name` succeeded."), made once.
    pub fn success_message(&self) -> &SharedStr {
        &self.succeeded
    }

    /// Whether the tool looks at the registry's state or calls tools through its context
    /// ([`Tool::uses_context`], asked once when the entry was made).
    pub fn uses_context(&self) -> bool {
        self.uses_context
    }

    /// A context for call `call_id` that reaches the registry's state values.
    pub fn context_for(&self, call_id: impl Into<SharedStr>) -> ToolContext {
        ToolContext::new(call_id, self.name.clone()).with_states(self.states.clone())
    }

    /// Coerces (when `lenient`) and validates arguments against the advertised schema.
    ///
    /// # Errors
    /// A `VALIDATION_ERROR` envelope error listing every violation.
    pub fn prepare(&self, args: Value, lenient: bool) -> Result<(Value, Vec<Coercion>), ToolError> {
        self.validator.check(args, lenient)
    }
}

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// Another tool has the name.
    Duplicate(String),
    /// The name is empty or has characters providers reject.
    InvalidName(String),
    /// The tool's schema does not compile.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// The compiler's message.
        reason: String,
    },
}

impl std::fmt::Display for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegistryError::Duplicate(n) => write!(f, "a tool named `{n}` is already registered"),
            RegistryError::InvalidName(n) => write!(
                f,
                "invalid tool name `{n}`: use 1-64 characters from a-z A-Z 0-9 _ - ."
            ),
            RegistryError::InvalidSchema { tool, reason } => {
                write!(f, "tool `{tool}` has an invalid schema: {reason}")
            }
        }
    }
}

impl std::error::Error for RegistryError {}

/// Whether `name` is acceptable to every provider (`^[a-zA-Z0-9_.-]{1,64}$`).
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[derive(Default)]
struct Inner {
    order: Vec<String>,
    /// Keyed by registered names (not by what callers send), so a fast hasher is safe here.
    map: HashMap<String, Arc<ToolEntry>, foldhash::fast::RandomState>,
}

/// Named tools, in registration order: it resolves names and validates arguments; calls run
/// through `toolwright_runtime::Runtime::invoke`.
///
/// ```
/// use toolwright_core::{ErrorCode, FnTool, Registry, ToolSpec, ToolOutput};
/// let reg = Registry::new();
/// reg.register(FnTool::new(
///     ToolSpec::new("echo", "Echo text. Use this to test.", serde_json::json!({
///         "type":"object","properties":{"text":{"type":"string"}},"required":["text"],
///         "additionalProperties":false})),
///     |args, _| async move { Ok(ToolOutput::Data(args["text"].clone())) },
/// )).unwrap();
/// let echo = reg.resolve("echo").unwrap();
/// let (args, _coerced) = echo.prepare(serde_json::json!({"text": "hi"}), true).unwrap();
/// assert_eq!(args["text"], "hi");
/// let err = echo.prepare(serde_json::json!({}), true).unwrap_err();
/// assert_eq!(err.code, ErrorCode::Validation);
/// let err = reg.resolve("ehco").unwrap_err();
/// assert!(err.suggestion.contains("echo"));
/// ```
#[derive(Default)]
pub struct Registry {
    inner: RwLock<Inner>,
    states: Arc<crate::state::States>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.names())
            .finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry::default()
    }

    /// Stores `value` as the state of type `T` that tools receive through a [`crate::State`]
    /// parameter (replacing an earlier value of that type). Tools registered before or after
    /// see it alike.
    pub fn insert_state<T: Send + Sync + 'static>(&self, value: T) {
        self.states.insert(Arc::new(value));
    }

    /// [`Registry::insert_state`], builder style.
    #[must_use]
    pub fn with_state<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.insert_state(value);
        self
    }

    /// The state of type `T`, if one was stored.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.states.get::<T>()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a tool.
    ///
    /// # Errors
    /// Duplicate or invalid name, or a schema that does not compile.
    pub fn register<T: Tool>(&self, tool: T) -> Result<(), RegistryError> {
        self.register_arc(Arc::new(tool))
    }

    /// Registers a shared tool.
    ///
    /// # Errors
    /// Duplicate or invalid name, or a schema that does not compile.
    pub fn register_arc(&self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let name = tool.spec().name.clone();
        if !is_valid_tool_name(&name) {
            return Err(RegistryError::InvalidName(name));
        }
        let mut entry = ToolEntry::new(tool)?;
        entry.states = self.states.clone();
        let entry = Arc::new(entry);
        let mut inner = self.write();
        if inner.map.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        inner.order.push(name.clone());
        inner.map.insert(name, entry);
        Ok(())
    }

    /// Registers or replaces a tool (used when a remote tool list changes).
    ///
    /// # Errors
    /// Invalid name or schema.
    pub fn upsert_arc(&self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let name = tool.spec().name.clone();
        if !is_valid_tool_name(&name) {
            return Err(RegistryError::InvalidName(name));
        }
        let mut entry = ToolEntry::new(tool)?;
        entry.states = self.states.clone();
        let entry = Arc::new(entry);
        let mut inner = self.write();
        if inner.map.insert(name.clone(), entry).is_none() {
            inner.order.push(name);
        }
        Ok(())
    }

    /// Removes a tool; returns whether it was there.
    pub fn remove(&self, name: &str) -> bool {
        let mut inner = self.write();
        let had = inner.map.remove(name).is_some();
        inner.order.retain(|n| n != name);
        had
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.read().order.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tool names in registration order.
    pub fn names(&self) -> Vec<String> {
        self.read().order.clone()
    }

    /// Specs in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.entries().iter().map(|e| e.spec().clone()).collect()
    }

    /// Entries in registration order.
    pub fn entries(&self) -> Vec<Arc<ToolEntry>> {
        let inner = self.read();
        inner
            .order
            .iter()
            .filter_map(|n| inner.map.get(n).cloned())
            .collect()
    }

    /// The entry for `name`, if registered.
    pub fn get(&self, name: &str) -> Option<Arc<ToolEntry>> {
        self.read().map.get(name).cloned()
    }

    /// The entry for `name`, or an `UNKNOWN_TOOL` error naming the closest tools.
    ///
    /// # Errors
    /// `UNKNOWN_TOOL` with suggestions.
    pub fn resolve(&self, name: &str) -> Result<Arc<ToolEntry>, ToolError> {
        if let Some(e) = self.get(name) {
            return Ok(e);
        }
        let names = self.names();
        let near = closest(name, names.iter().map(String::as_str), 3);
        let suggestion = if near.is_empty() {
            // A large registry is not listed whole into the model's context.
            const LISTED: usize = 20;
            let shown = names
                .iter()
                .take(LISTED)
                .map(String::as_str)
                .collect::<Vec<_>>();
            let more = names.len().saturating_sub(LISTED);
            if more == 0 {
                format!("Call one of the available tools: {}.", shown.join(", "))
            } else {
                format!(
                    "Call one of the available tools: {}, and {more} more.",
                    shown.join(", ")
                )
            }
        } else {
            format!(
                "Did you mean {}? Call the tool by its exact name.",
                near.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        };
        let shown: String = name.chars().take(80).collect();
        Err(ToolError::unknown_tool(
            format!("There is no tool named `{shown}`."),
            suggestion,
        ))
    }
}

impl Invoker for Registry {
    fn invoke_call(&self, _call: ToolCall, _parent: &ToolContext) -> BoxFuture<'static, Outcome> {
        // A bare registry cannot be shared into 'static futures; composition needs the runtime.
        Box::pin(async {
            Outcome::from_error(ToolError::internal(
                "tool composition needs the runtime (toolwright-runtime)",
            ))
        })
    }
}

/// A stable id for approving one call: the tool and a hash of its canonical arguments.
pub fn approval_id(tool: &str, args: &Value) -> String {
    format!("approve-{tool}-{}", crate::canonical::short_hash(args))
}

/// Runs the tool, turning its result, an error or a panic into an envelope (meta not filled).
pub async fn run_guarded(entry: &ToolEntry, args: Value, ctx: ToolContext) -> Outcome {
    let started = std::panic::catch_unwind(AssertUnwindSafe(|| entry.tool.call(args, ctx)));
    settle(entry, started).await
}

/// [`run_guarded`] with arguments that may be shared (see [`Tool::call_shared`]).
pub async fn run_guarded_shared(entry: &ToolEntry, args: Arc<Value>, ctx: ToolContext) -> Outcome {
    let started = std::panic::catch_unwind(AssertUnwindSafe(|| entry.tool.call_shared(args, ctx)));
    settle(entry, started).await
}

/// Awaits a started tool future with panics caught; the tool's name is only looked at when
/// something went wrong.
async fn settle(
    entry: &ToolEntry,
    started: std::thread::Result<crate::tool::ToolFuture>,
) -> Outcome {
    let fut = match started {
        Ok(f) => f,
        Err(p) => return panic_outcome(&entry.spec().name, &p),
    };
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(result) => outcome_of(entry, result),
        Err(p) => panic_outcome(&entry.spec().name, &p),
    }
}

/// One call of a tool, polled with panics caught, as a plain future: what [`run_guarded_shared`]
/// does, without an `async` state machine around the tool's own boxed future (the runtime
/// awaits it unboxed on its per-call path). The tool is started on the first poll, with the
/// attempt's [`BlockingWatch`](crate::blocking::BlockingWatch) in scope during every poll.
pub struct GuardedCall {
    entry: Arc<ToolEntry>,
    watch: Option<crate::blocking::BlockingWatch>,
    /// The watch is made when a blocking body starts ([`GuardedCall::watch_lazily`]).
    lazy: bool,
    /// The arguments are kept for another attempt ([`GuardedCall::keep_args`]).
    keep: bool,
    /// The arguments kept, once the tool started.
    kept: Option<Arc<Value>>,
    state: Guarded,
}

enum Guarded {
    NotStarted(Arc<Value>, ToolContext),
    Running(crate::tool::ToolFuture),
    Done,
}

impl std::fmt::Debug for GuardedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedCall")
            .field("tool", &self.entry.spec().name)
            .finish_non_exhaustive()
    }
}

impl GuardedCall {
    /// A call of `entry`'s tool with `args` and `ctx`, counted on `watch` (if any) when it
    /// runs sync bodies; nothing runs until the first poll.
    pub fn new(
        entry: Arc<ToolEntry>,
        args: Arc<Value>,
        ctx: ToolContext,
        watch: Option<crate::blocking::BlockingWatch>,
    ) -> Self {
        GuardedCall {
            entry,
            watch,
            lazy: false,
            keep: false,
            kept: None,
            state: Guarded::NotStarted(args, ctx),
        }
    }

    /// A call of `entry`'s tool already started as `fut` (from [`Tool::call_json`]), counted
    /// on `watch` (if any) when it runs sync bodies: it keeps no arguments.
    pub fn started(
        entry: Arc<ToolEntry>,
        fut: crate::tool::ToolFuture,
        watch: Option<crate::blocking::BlockingWatch>,
    ) -> Self {
        GuardedCall {
            entry,
            watch,
            lazy: false,
            keep: false,
            kept: None,
            state: Guarded::Running(fut),
        }
    }

    /// Keeps the arguments for another attempt when `keep` ([`GuardedCall::take_args`] hands
    /// them out once the tool started): a tool that [borrows](ToolEntry::borrows_args) them
    /// runs from a reference and the call's handle is the only one (no reference count
    /// changes, no copy); another gets a shared handle, as [`Tool::call_shared`] allows.
    #[must_use]
    pub fn keep_args(mut self, keep: bool) -> Self {
        self.keep = keep;
        self
    }

    /// The arguments kept by [`GuardedCall::keep_args`], once the tool has started.
    pub fn take_args(&mut self) -> Option<Arc<Value>> {
        self.kept.take()
    }

    /// Counts the sync bodies the call starts on a watch made only when the first one starts
    /// (most calls start none: no allocation); [`GuardedCall::watch`] gives it to whoever has
    /// to read it (a deadline).
    #[must_use]
    pub fn watch_lazily(mut self) -> Self {
        self.lazy = true;
        self
    }

    /// The tool this call runs.
    pub fn entry(&self) -> &Arc<ToolEntry> {
        &self.entry
    }

    /// The call's watch: the one it was made with, the one made when a sync body started, or
    /// (for a call watched lazily that started none yet) a new one it counts on from now.
    pub fn watch(&mut self) -> crate::blocking::BlockingWatch {
        self.watch.get_or_insert_with(Default::default).clone()
    }

    fn step(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Box<Outcome>> {
        use std::task::Poll;
        if matches!(self.state, Guarded::NotStarted(..))
            && let Guarded::NotStarted(args, ctx) =
                std::mem::replace(&mut self.state, Guarded::Done)
        {
            let tool = &self.entry.tool;
            let (keep, borrows) = (self.keep, self.entry.borrows_args);
            let kept = &mut self.kept;
            let started = std::panic::catch_unwind(AssertUnwindSafe(|| {
                if !keep {
                    return tool.call_shared(args, ctx);
                }
                if borrows {
                    let f = tool.call_ref(&args, ctx);
                    *kept = Some(args);
                    return f;
                }
                *kept = Some(Arc::clone(&args));
                tool.call_shared(args, ctx)
            }));
            match started {
                Ok(f) => self.state = Guarded::Running(f),
                Err(p) => return Poll::Ready(Box::new(panic_outcome(&self.entry.spec().name, &p))),
            }
        }
        let Guarded::Running(fut) = &mut self.state else {
            return Poll::Ready(Box::new(Outcome::from_error(ToolError::internal(
                "a finished tool call was polled again",
            ))));
        };
        // The result becomes its (boxed) envelope where it is polled: a tool's result and an
        // envelope are a few hundred bytes each, and are not moved out through the layers.
        let entry = &self.entry;
        let polled = std::panic::catch_unwind(AssertUnwindSafe(|| {
            fut.as_mut()
                .poll(cx)
                .map(|result| Box::new(outcome_of(entry, result)))
        }));
        let out = match polled {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(out)) => out,
            Err(p) => Box::new(panic_outcome(&self.entry.spec().name, &p)),
        };
        self.state = Guarded::Done;
        Poll::Ready(out)
    }

    /// Polls the call; its envelope comes boxed (what the runtime's per-call path passes on:
    /// an envelope is a few hundred bytes, a box one pointer). The [`Future`](std::future::Future)
    /// impl is this, unboxed.
    pub fn poll_boxed(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Box<Outcome>> {
        if self.watch.is_none() && !self.lazy {
            return self.step(cx);
        }
        let mut watch = self.watch.take();
        let polled = if self.lazy {
            crate::blocking::BlockingWatch::enter_lazily(&mut watch, || self.step(cx))
        } else {
            crate::blocking::BlockingWatch::enter_in(&mut watch, || self.step(cx))
        };
        self.watch = watch;
        polled
    }
}

impl std::future::Future for GuardedCall {
    type Output = Outcome;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Outcome> {
        self.get_mut().poll_boxed(cx).map(|out| *out)
    }
}

/// The envelope of a tool's result.
fn outcome_of(entry: &ToolEntry, result: crate::tool::ToolResult) -> Outcome {
    match result {
        Ok(ToolOutput::Data(data)) => Outcome::success(data),
        Ok(ToolOutput::Outcome(o)) => o,
        Err(e) => {
            if let Some(d) = &e.detail {
                tracing::warn!(tool = %entry.spec().name, code = %e.code, detail = %d, "tool error");
            }
            Outcome::from_error(e)
        }
    }
}

/// The message of a panic payload (`&str` or `String`), for logs only.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_string())
}

fn panic_outcome(tool: &str, payload: &Box<dyn std::any::Any + Send>) -> Outcome {
    let text = panic_text(payload.as_ref());
    tracing::error!(tool = %tool, panic = %text, "tool panicked");
    Outcome::from_error(ToolError::internal(format!("panic: {text}")))
}

/// Fills `meta` (tool, call id, coercions, and `duration`, how long the call took, as
/// `duration_ms`), writes a default message, and applies the output budget of `spec`. The tool's name is `spec`'s, or the name `call` asked for (at most
/// 80 characters) when no tool answered.
pub fn finish(
    mut out: Outcome,
    spec: Option<&ToolSpec>,
    call: &ToolCall,
    duration: Duration,
    coerced: Vec<Coercion>,
) -> Outcome {
    let tool = spec.map_or_else(
        || called_name(&call.name),
        |s| SharedStr::from(s.name.as_str()),
    );
    let names = CallNames {
        tool,
        call_id: call.id.clone(),
    };
    finish_in_place(&mut out, spec, names, duration, coerced);
    out
}

/// The names an envelope's meta carries: the tool that answered and the call's id. Shared
/// strings, so that the runtime hands the ones its tool's context got to the envelope without
/// copying them.
#[derive(Debug, Clone, Default)]
pub struct CallNames {
    /// The tool that answered (`meta.tool`).
    pub tool: SharedStr,
    /// The call's id (`meta.call_id`).
    pub call_id: SharedStr,
}

/// The name a call asked for, as the envelope of a call no tool answered carries it: its first
/// 80 characters.
pub fn called_name(name: &str) -> SharedStr {
    if name.chars().nth(80).is_none() {
        SharedStr::from(name)
    } else {
        SharedStr::from(name.chars().take(80).collect::<String>())
    }
}

/// [`finish`] on an envelope in place (an envelope is large: the runtime does not move it
/// through here), with the names already made.
pub fn finish_in_place(
    out: &mut Outcome,
    spec: Option<&ToolSpec>,
    names: CallNames,
    duration: Duration,
    coerced: Vec<Coercion>,
) {
    out.meta.tool = names.tool;
    out.meta.call_id = names.call_id;
    out.meta.duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    if out.meta.attempt == 0 {
        out.meta.attempt = 1;
    }
    if !coerced.is_empty() {
        out.meta.coerced = coerced;
    }
    if out.message.is_empty() {
        out.message = match out.status() {
            Status::Success => sentence(&out.meta.tool, " succeeded.").into(),
            Status::Partial => sentence(&out.meta.tool, " returned a partial result.").into(),
            Status::Error => out.error().map_or_else(
                || SharedStr::from_static("The call failed."),
                |e| SharedStr::from(e.message.as_str()),
            ),
            Status::NeedsConfirmation => SharedStr::from_static("This action needs approval."),
        };
    }
    if let Some(s) = spec {
        crate::budget::apply_output_budget_in_place(out, s.output_limit());
    }
}

/// `head` followed by `tail`, in one allocation.
fn sentence(head: &str, tail: &str) -> String {
    let mut s = String::with_capacity(head.len() + tail.len());
    s.push_str(head);
    s.push_str(tail);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::DefinitionOnly;

    fn registry_of(n: usize) -> Registry {
        let reg = Registry::new();
        for i in 0..n {
            let spec = ToolSpec::new(
                format!("tool_{i:04}"),
                "A tool. Use this when testing.",
                serde_json::json!({"type": "object"}),
            );
            reg.register(DefinitionOnly::new(spec)).unwrap();
        }
        reg
    }

    #[test]
    fn an_unknown_name_lists_at_most_twenty_tools() {
        let err = registry_of(1000).resolve("zzzzzzzz").unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::UnknownTool);
        assert!(err.suggestion.contains("tool_0000"), "{}", err.suggestion);
        assert!(err.suggestion.contains("tool_0019"));
        assert!(!err.suggestion.contains("tool_0020"));
        assert!(
            err.suggestion.ends_with("and 980 more."),
            "{}",
            err.suggestion
        );

        let err = registry_of(3).resolve("zzzzzzzz").unwrap_err();
        assert!(
            err.suggestion.ends_with("tool_0000, tool_0001, tool_0002."),
            "{}",
            err.suggestion
        );
    }

    #[test]
    fn a_near_name_is_suggested_by_name() {
        let err = registry_of(30).resolve("tool_0o12").unwrap_err();
        assert!(
            err.suggestion.starts_with("Did you mean"),
            "{}",
            err.suggestion
        );
        assert!(err.suggestion.contains("`tool_0012`"), "{}", err.suggestion);
    }
}
