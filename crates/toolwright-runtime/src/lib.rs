//! The toolwright runtime: runs calls from a [`Registry`] under policies and always answers with
//! an [`Outcome`].
//!
//! The public entry points below are the contract other crates (agent, MCP, CLI) code against:
//! [`Runtime::new`], [`Runtime::registry`], [`Runtime::invoke`], [`Runtime::invoke_json`] (the
//! arguments as JSON text), [`Runtime::invoke_batch`] and [`CallOptions`].
//!
//! # How a call runs
//!
//! ```text
//! events + metrics + tracing span "execute_tool {name}"
//!  └ retry budget per (session, step, tool)          budget.rs
//!     └ resolve the name, coerce + validate args       (toolwright-core)
//!        └ confirmation gate                           confirm.rs
//!           └ idempotency (replay / conflict / once)   idempotency/
//!              └ rate limit (shared through the store) ratelimit.rs
//!              └ fallback on DEPENDENCY_UNAVAILABLE    fallback.rs
//!                 └ transient retries with backoff     retry.rs
//!                    └ deadline that cancels           timeout.rs
//!                       └ the tool on its own task     service.rs (ToolService)
//!  └ meta + output budget                              (toolwright-core `finish`)
//! ```
//!
//! Each policy is a [`service::Layer`] around the one [`service::Service`] contract and is
//! tested alone. Validation happens before any policy: nothing runs, is stored or is retried on
//! arguments that break the advertised schema.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use toolwright_core::{FnTool, Registry, ToolCall, ToolOutput, ToolSpec, SideEffects, Status};
//! use toolwright_runtime::{CallOptions, Runtime};
//!
//! let reg = Registry::new();
//! reg.register(FnTool::new(
//!     ToolSpec::new("delete_file", "Delete a file. Use this when the user asks to delete one.",
//!         serde_json::json!({"type": "object", "properties": {"path": {"type": "string"},
//!                             "confirm": {"type": "boolean"}}}))
//!         .side_effects(SideEffects::Destructive),
//!     |_, _| async { Ok(ToolOutput::Data(serde_json::json!({"deleted": true}))) },
//! )).unwrap();
//! let rt = Runtime::new(Arc::new(reg));
//! let args = serde_json::json!({"path": "notes.txt", "confirm": true});
//! let first = rt.invoke(ToolCall::new("c1", "delete_file", args.clone()), &CallOptions::default()).await;
//! assert_eq!(first.status(), Status::NeedsConfirmation); // `confirm: true` approves nothing
//! rt.approve(first.meta.approval_id.as_deref().unwrap()).await.unwrap();
//! let second = rt.invoke(ToolCall::new("c2", "delete_file", args), &CallOptions::default()).await;
//! assert_eq!(second.status(), Status::Success);
//! # });
//! ```

pub mod budget;
pub mod confirm;
mod direct;
pub mod events;
pub mod fallback;
pub mod idempotency;
pub mod metrics;
pub mod ratelimit;
pub mod retry;
pub mod service;
pub mod shared;
pub mod timeout;

pub use budget::Budgets;
pub use confirm::{ApprovalError, Approvals, ConfirmationLayer, PendingApproval};
pub use events::ToolEvent;
pub use fallback::{ArgMapper, FallbackLayer};
#[cfg(feature = "redis")]
pub use idempotency::RedisStore;
#[cfg(feature = "sqlite")]
pub use idempotency::SqliteStore;
pub use idempotency::{
    IdempotencyConfig, IdempotencyLayer, IdempotencyStore, MemoryStore, MeteredStore, Record,
    Reservation, StoreError, open_store,
};
pub use metrics::{Metrics, MetricsSnapshot, ToolMetrics};
pub use ratelimit::RateLimitLayer;
pub use retry::{RetryLayer, RetryPolicy};
pub use service::{BoxService, Layer, Request, Service, ToolService};
pub use shared::{RateDecision, SharedState};
pub use timeout::{DEFAULT_TIMEOUT, TimeoutLayer};

use direct::Direct;
use futures::StreamExt;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use toolwright_core::{
    CallNames, CancelSignal, DEFAULT_MAX_RETRIES, ErrorCode, Invoker, Outcome, Registry, SharedStr,
    ToolCall, ToolContext, ToolError, finish, finish_in_place,
};
use tracing::Instrument;

/// Per-call options a host passes to [`Runtime::invoke`].
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// A person approved this call ahead of time (confirmation gate; the CLI's `--approve`).
    /// Hosts that ask first use [`Runtime::approve`] with the id from `needs_confirmation`.
    pub approved: bool,
    /// Session (conversation) id; scopes derived idempotency keys, budgets and approvals.
    pub session_id: Option<String>,
    /// Agent step; retry budgets are per (step, tool).
    pub step: u32,
    /// Disable lenient coercion (strict validation only).
    pub strict: bool,
    /// Cancelled by the host to cancel the call (answers `CANCELLED`).
    pub cancel: Option<CancellationToken>,
    /// Who asks (an opaque id, e.g. a hash of the caller's bearer token); tools whose
    /// `rate_limit` is `per_caller` count each caller on its own.
    pub caller: Option<String>,
}

/// The metrics series of calls to names that are not registered.
pub const UNKNOWN_TOOL_SERIES: &str = "(unknown)";

/// How deeply tools may call tools through [`ToolContext::call_tool`].
pub const MAX_CALL_DEPTH: u32 = 8;

/// Default number of calls of a batch that run at once.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// Builds a [`Runtime`] with non-default policies.
pub struct RuntimeBuilder {
    registry: Arc<Registry>,
    store: Arc<dyn IdempotencyStore>,
    default_timeout: Duration,
    retry: RetryPolicy,
    concurrency: usize,
    idempotency: IdempotencyConfig,
    approval_ttl: Duration,
    mappers: Vec<(String, String, ArgMapper)>,
    isolate_tools: bool,
    export_metrics: bool,
    policies: bool,
}

impl std::fmt::Debug for RuntimeBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeBuilder")
            .field("store", &self.store.backend())
            .field("default_timeout", &self.default_timeout)
            .field("retry", &self.retry)
            .field("concurrency", &self.concurrency)
            .field("policies", &self.policies)
            .finish_non_exhaustive()
    }
}

impl RuntimeBuilder {
    /// The idempotency store (default: in memory). See [`open_store`].
    pub fn store(mut self, store: Arc<dyn IdempotencyStore>) -> Self {
        self.store = store;
        self
    }

    /// The deadline of tools that declare neither `timeout_ms` nor `sla_ms` (default 30 s).
    pub fn default_timeout(mut self, d: Duration) -> Self {
        self.default_timeout = d;
        self.idempotency.default_timeout = d;
        self
    }

    /// How transient failures are retried.
    pub fn retry_policy(mut self, p: RetryPolicy) -> Self {
        self.retry = p;
        self
    }

    /// Calls of a batch that run at once (default 4, at least 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// How long idempotent results are kept (default 24 h).
    pub fn idempotency_ttl(mut self, ttl: Duration) -> Self {
        self.idempotency.ttl = ttl;
        self
    }

    /// The longest a duplicate call waits for the call that holds its key (default 60 s).
    pub fn idempotency_wait(mut self, wait: Duration) -> Self {
        self.idempotency.max_wait = wait;
        self
    }

    /// How long approval requests stay valid (default 15 min).
    pub fn approval_ttl(mut self, ttl: Duration) -> Self {
        self.approval_ttl = ttl;
        self
    }

    /// Maps arguments when `from` falls back to `to` and `to`'s schema rejects them as they are.
    pub fn fallback_mapper(mut self, from: &str, to: &str, mapper: ArgMapper) -> Self {
        self.mappers
            .push((from.to_string(), to.to_string(), mapper));
        self
    }

    /// Whether each call runs on its own task (default false: polled in the caller's task;
    /// see [`ToolService`]).
    pub fn isolate_tools(mut self, yes: bool) -> Self {
        self.isolate_tools = yes;
        self
    }

    /// Also emit every call's metrics through the [`metrics`](::metrics) facade (series in
    /// [`metrics::names`]), and time every store round trip, so a host's recorder (e.g. a
    /// Prometheus exporter) sees them. Default off: without it a call touches no facade.
    pub fn export_metrics(mut self, yes: bool) -> Self {
        self.export_metrics = yes;
        self
    }

    /// Whether the reliability policies run (default true). Without them a call is resolved,
    /// validated, passed through the confirmation gate (always kept: the model never approves
    /// its own destructive calls) and run with panics caught; there is no deadline, no retry,
    /// no fallback, no rate limit and no idempotency, and a host's cancellation stops a call
    /// only before it starts. For trusted, fast tools where the least
    /// overhead per call matters, and to measure what the policies cost.
    pub fn policies(mut self, on: bool) -> Self {
        self.policies = on;
        self
    }

    /// The runtime.
    pub fn build(mut self) -> Runtime {
        // The call clock calibrates once per process (about half a millisecond here): when the
        // runtime is made, not in its first call.
        let _ = quanta::Instant::now();
        if self.export_metrics {
            self.store = Arc::new(MeteredStore::new(self.store));
        }
        let approvals = Arc::new(Approvals::new(self.store.clone(), self.approval_ttl));
        let mut fallback = FallbackLayer::new(self.registry.clone());
        for (from, to, m) in self.mappers {
            fallback = fallback.with_mapper(&from, &to, m);
        }
        // Innermost first.
        let tools = if self.isolate_tools {
            ToolService::isolated()
        } else {
            ToolService::inline()
        };
        let mut stack: BoxService = Arc::new(tools);
        if self.policies {
            stack = TimeoutLayer::new(self.default_timeout).layer(stack);
        }
        let direct = (!self.isolate_tools).then(|| Direct {
            policies: self.policies,
            default_timeout: self.default_timeout,
            retry: self.retry,
            attempts: stack.clone(),
        });
        if self.policies {
            stack = RetryLayer::new(self.retry).layer(stack);
            stack = fallback.layer(stack);
            stack = RateLimitLayer::new(self.store.clone()).layer(stack);
            stack = IdempotencyLayer::new(self.store.clone(), self.idempotency).layer(stack);
        }
        stack = ConfirmationLayer::new(approvals.clone()).layer(stack);
        let (events, _) = broadcast::channel(1024);
        Runtime {
            inner: Arc::new_cyclic(|weak| Inner {
                // One invoker per depth, made once: a call does not allocate one.
                invokers: (1..=MAX_CALL_DEPTH + 1)
                    .map(|depth| {
                        Arc::new(ChildInvoker {
                            runtime: weak.clone(),
                            depth,
                        }) as Arc<dyn Invoker>
                    })
                    .collect(),
                registry: self.registry,
                stack,
                direct,
                approvals,
                budgets: Budgets::new(),
                metrics: Metrics::new(),
                events,
                subscribed: std::sync::atomic::AtomicBool::new(false),
                concurrency: self.concurrency,
                store: self.store,
                next_id: AtomicU64::new(1),
                export_metrics: self.export_metrics,
                handles: metrics::Handles::default(),
                in_flight: std::sync::atomic::AtomicUsize::new(0),
            }),
        }
    }
}

struct Inner {
    invokers: Vec<Arc<dyn Invoker>>,
    registry: Arc<Registry>,
    stack: BoxService,
    /// The direct path (absent when tools run on their own tasks).
    direct: Option<Direct>,
    approvals: Arc<Approvals>,
    budgets: Budgets,
    metrics: Metrics,
    events: broadcast::Sender<ToolEvent>,
    /// Someone called [`Runtime::subscribe`]: until then no call asks the channel (a lock)
    /// whether anyone listens.
    subscribed: std::sync::atomic::AtomicBool,
    concurrency: usize,
    store: Arc<dyn IdempotencyStore>,
    next_id: AtomicU64,
    export_metrics: bool,
    /// The facade's handles, when `export_metrics`.
    handles: metrics::Handles,
    in_flight: std::sync::atomic::AtomicUsize,
}

/// Runs tool calls under the runtime's policies. Cheap to clone (shared state).
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("registry", &self.inner.registry)
            .field("store", &self.inner.store.backend())
            .field("concurrency", &self.inner.concurrency)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime over `registry` with default policies and an in-memory idempotency store.
    pub fn new(registry: Arc<Registry>) -> Self {
        Runtime::builder(registry).build()
    }

    /// A builder for a runtime over `registry`.
    pub fn builder(registry: Arc<Registry>) -> RuntimeBuilder {
        RuntimeBuilder {
            registry,
            store: Arc::new(MemoryStore::new()),
            default_timeout: DEFAULT_TIMEOUT,
            retry: RetryPolicy::default(),
            concurrency: DEFAULT_CONCURRENCY,
            idempotency: IdempotencyConfig::default(),
            approval_ttl: confirm::DEFAULT_APPROVAL_TTL,
            mappers: Vec::new(),
            isolate_tools: false,
            export_metrics: false,
            policies: true,
        }
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.inner.registry
    }

    /// The idempotency store.
    pub fn store(&self) -> &Arc<dyn IdempotencyStore> {
        &self.inner.store
    }

    /// Approves the call waiting under `approval_id` (from a `needs_confirmation` envelope); the
    /// same call, repeated, then runs once. With a shared store, any replica may approve a call
    /// another one was asked.
    ///
    /// # Errors
    /// No call waits for that id, or the store did not answer.
    pub async fn approve(&self, approval_id: &str) -> Result<PendingApproval, ApprovalError> {
        self.inner.approvals.approve(approval_id).await
    }

    /// Refuses the call waiting under `approval_id`; returns whether one was waiting.
    ///
    /// # Errors
    /// The store did not answer.
    pub async fn deny(&self, approval_id: &str) -> Result<bool, StoreError> {
        self.inner.approvals.deny(approval_id).await
    }

    /// Calls waiting for approval.
    ///
    /// # Errors
    /// The store did not answer.
    pub async fn pending_approvals(&self) -> Result<Vec<PendingApproval>, StoreError> {
        self.inner.approvals.pending().await
    }

    /// Whether the store answers: what a readiness probe asks.
    ///
    /// # Errors
    /// The store did not answer.
    pub async fn ping_store(&self) -> Result<(), StoreError> {
        self.inner.store.ping().await
    }

    /// Started/finished events of every call from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ToolEvent> {
        let rx = self.inner.events.subscribe();
        self.inner.subscribed.store(true, Ordering::Release);
        rx
    }

    /// Calls running now (tools called by tools included): what a graceful shutdown waits for.
    pub fn calls_in_flight(&self) -> usize {
        self.inner.in_flight.load(Ordering::Acquire)
    }

    /// Per-tool metrics so far.
    pub fn metrics(&self) -> MetricsSnapshot {
        self.inner.metrics.snapshot()
    }

    /// Runs one call and returns its envelope. Never panics.
    pub async fn invoke(&self, call: ToolCall, opts: &CallOptions) -> Outcome {
        *self.invoke_at(call, None, opts, 0).await
    }

    /// Runs the call `id` of tool `name` whose arguments are the JSON text `arguments` (what a
    /// model writes; OpenAI-style providers deliver it as a string), and returns its envelope.
    /// Never panics.
    ///
    /// The envelope is the one [`Runtime::invoke`] answers for the parsed arguments, byte for
    /// byte but for `duration_ms`: text that is not JSON is taken as the string it is (what
    /// [`Runtime::invoke`] answers for `Value::String(arguments)`: a `VALIDATION_ERROR`, the
    /// schema's root being an object), as providers hand such arguments on. Metrics, events,
    /// the tracing span and the budgets are those of [`Runtime::invoke`].
    ///
    /// It is faster when the call would take the runtime's direct path (no confirmation to ask,
    /// no idempotency key, no rate limit, no fallback) and the tool takes raw JSON
    /// ([`Tool::takes_json`](toolwright_core::Tool::takes_json): a `#[tool]` function whose
    /// parameters are strings, numbers, booleans or string enumerations with the `#[arg]`
    /// bounds): the arguments are then deserialized straight into the tool's typed
    /// parameters, with the schema's constraints checked on the typed values, and no `Value`
    /// is made. Arguments the typed path does not take, and every other call, are parsed and
    /// run as [`Runtime::invoke`] runs them.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use toolwright_core::{ErrorCode, Registry, ToolError};
    /// use toolwright_runtime::{CallOptions, Runtime};
    ///
    /// /// Adds two numbers. Use this when asked for a sum.
    /// ///
    /// /// # Arguments
    /// /// * `a` - The first number
    /// /// * `b` - The second number, at most 100
    /// #[toolwright::tool(side_effects = "none")]
    /// async fn add(a: i64, #[arg(max = 100)] b: i64) -> Result<i64, ToolError> {
    ///     Ok(a + b)
    /// }
    ///
    /// let reg = Registry::new();
    /// reg.register(AddTool).unwrap();
    /// let rt = Runtime::new(Arc::new(reg));
    /// let opts = CallOptions::default();
    /// let out = rt.invoke_json("c1", "add", r#"{"a": 2, "b": 3}"#, &opts).await;
    /// assert_eq!(out.data, Some(serde_json::json!(5)));
    /// // Out of bounds: the validator's report, as `invoke` gives it.
    /// let out = rt.invoke_json("c2", "add", r#"{"a": 2, "b": 300}"#, &opts).await;
    /// assert_eq!(out.error_code(), Some(ErrorCode::Validation));
    /// # });
    /// ```
    pub async fn invoke_json(
        &self,
        id: impl Into<SharedStr>,
        name: impl Into<SharedStr>,
        arguments: &str,
        opts: &CallOptions,
    ) -> Outcome {
        let call = ToolCall::new(id, name, serde_json::Value::Null);
        *self.invoke_at(call, Some(arguments), opts, 0).await
    }

    /// Runs the calls of one model turn; results come back in call order. Up to the configured
    /// concurrency (default 4) run at once; a tool marked `atomic` runs alone, after the calls
    /// before it finished and before the calls after it start.
    pub async fn invoke_batch(&self, calls: Vec<ToolCall>, opts: &CallOptions) -> Vec<Outcome> {
        let mut out = Vec::with_capacity(calls.len());
        let mut group = Vec::new();
        for call in calls {
            let atomic = self
                .inner
                .registry
                .get(&call.name)
                .is_some_and(|e| e.spec().meta.atomic);
            if atomic {
                out.extend(self.run_group(std::mem::take(&mut group), opts).await);
                out.push(self.invoke(call, opts).await);
            } else {
                group.push(call);
            }
        }
        out.extend(self.run_group(group, opts).await);
        out
    }

    async fn run_group(&self, calls: Vec<ToolCall>, opts: &CallOptions) -> Vec<Outcome> {
        if calls.is_empty() {
            return Vec::new();
        }
        futures::stream::iter(calls.into_iter().map(|c| self.invoke(c, opts)))
            .buffered(self.inner.concurrency)
            .collect()
            .await
    }

    // Not boxed: a call moves through here once, and recursion (tools calling tools) goes
    // through the boxed `Invoker` future.
    /// [`Runtime::invoke`] at `depth`; the envelope stays boxed until the caller's place.
    /// `raw`, when given, is the arguments' JSON text (`call.arguments` is then unused).
    async fn invoke_at(
        &self,
        mut call: ToolCall,
        raw: Option<&str>,
        opts: &CallOptions,
        depth: u32,
    ) -> Box<Outcome> {
        // The TSC clock: a pair of reads costs about a third of `std::time::Instant`'s here.
        let start = quanta::Instant::now();
        if call.id.is_empty() {
            let n = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
            call.id = format!("call-{n}").into();
        }
        let entry = self.inner.registry.get(&call.name);
        // Events are built only when someone listens: no copies on the hot path otherwise.
        let listening =
            self.inner.subscribed.load(Ordering::Acquire) && self.inner.events.receiver_count() > 0;
        let label = listening.then(|| {
            entry
                .as_ref()
                .map_or_else(|| call.name.to_string(), |e| e.spec().label().to_string())
        });
        if let Some(label) = &label {
            let _ = self.inner.events.send(ToolEvent::Started {
                call_id: call.id.to_string(),
                tool: call.name.to_string(),
                display_label: label.clone(),
                session_id: opts.session_id.clone(),
                step: opts.step,
            });
        }
        let span = tracing::info_span!(
            "execute_tool",
            otel.name = %format!("execute_tool {}", call.name),
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = %call.name,
            gen_ai.tool.call.id = %call.id,
            gen_ai.tool.type = "function",
            toolwright.status = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        let in_flight = self
            .inner
            .export_metrics
            .then(|| metrics::InFlight::start(&self.inner.handles));
        let counted = Counted::new(&self.inner.in_flight);
        // No subscriber wants the span: the call is not wrapped in it (no enter/exit per poll).
        // (The call's future is made in each branch: a local holding it would be kept in this
        // future's state beside it.)
        // The envelope stays boxed through the runtime's own steps and is moved out once, at
        // the end (it is a few hundred bytes).
        let out = if span.is_disabled() {
            self.run(call, raw, entry.as_ref(), opts, depth, start)
                .await
        } else {
            self.run(call, raw, entry.as_ref(), opts, depth, start)
                .instrument(span.clone())
                .await
        };
        drop(counted);
        drop(in_flight);
        span.record("toolwright.status", out.status().as_str());
        if let Some(code) = out.error_code() {
            span.record("error.type", code.as_str());
            span.record("otel.status_code", "error");
        }
        // Names the model made up share one series, so they cannot blow up the label set.
        let known = match entry {
            Some(e) if *e.name() == out.meta.tool => Some(e),
            _ => self.inner.registry.get(&out.meta.tool),
        };
        let sla = known.as_ref().and_then(|e| e.facts().sla_ms);
        let series = if known.is_some() {
            out.meta.tool.as_str()
        } else {
            UNKNOWN_TOOL_SERIES
        };
        self.inner.metrics.record(series, sla, &out);
        if self.inner.export_metrics {
            metrics::emit(&self.inner.handles, series, &out, start.elapsed());
        }
        if let Some(display_label) = label {
            let _ = self.inner.events.send(ToolEvent::Finished {
                call_id: out.meta.call_id.to_string(),
                tool: out.meta.tool.to_string(),
                display_label,
                duration_ms: out.meta.duration_ms,
                status: out.status(),
                code: out.error_code(),
                replayed: out.meta.replayed,
                retries: out.meta.retries,
            });
        }
        out
    }

    async fn run(
        &self,
        mut call: ToolCall,
        raw: Option<&str>,
        entry: Option<&Arc<toolwright_core::ToolEntry>>,
        opts: &CallOptions,
        depth: u32,
        start: quanta::Instant,
    ) -> Box<Outcome> {
        let inner = &self.inner;
        if depth > MAX_CALL_DEPTH {
            let e = ToolError::new(
                ErrorCode::Internal,
                format!(
                    "Tools called tools more than {MAX_CALL_DEPTH} levels deep; the call was \
                     stopped to avoid a loop."
                ),
            );
            return refused(e, &call, start);
        }
        if opts
            .cancel
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
        {
            let e = ToolError::cancelled("The call was cancelled by the host before it started.");
            return refused(e, &call, start);
        }
        // Registered since the caller looked (rare): held here.
        let resolved;
        let entry = match entry {
            Some(e) => Ok(e),
            None => match inner.registry.resolve(&call.name) {
                Ok(e) => {
                    resolved = e;
                    Ok(&resolved)
                }
                Err(e) => Err(e),
            },
        };
        let max = entry
            .as_ref()
            .map_or(DEFAULT_MAX_RETRIES, |e| e.facts().max_retries);
        let session = opts.session_id.as_deref().unwrap_or("");
        let spec = entry.as_ref().ok().map(|e| e.spec());
        // The arguments move into validation and on into the request (no copy).
        let arguments = std::mem::take(&mut call.arguments);
        // Budgets belong to a session's steps: a call outside any session (a stateless HTTP
        // request, a one-off `call`) is always a first attempt and is not counted.
        let tracked = opts.session_id.is_some();
        let attempt = if tracked {
            match inner.budgets.begin(session, opts.step, &call.name, max) {
                Ok(a) => a,
                Err(out) => {
                    return Box::new(finish(*out, spec, &call, start.elapsed(), Vec::new()));
                }
            }
        } else {
            budget::Attempt { number: 1, max }
        };
        // The call's id, shared by the tool's context and the envelope (one copy per call).
        let call_id = call.id.clone();
        let mut coerced = Vec::new();
        // Raw JSON the tool takes runs without a `Value`; any other is parsed here.
        let started = match (&entry, raw) {
            (Ok(entry), Some(text)) => self.start_json(&call_id, entry, text, opts, (depth, start)),
            _ => None,
        };
        let arguments = match raw {
            Some(text) if started.is_none() => parse_arguments(text),
            _ => arguments,
        };
        let mut out = match (&entry, started, raw) {
            (Err(e), ..) => Box::new(Outcome::from_error(e.clone())),
            (Ok(entry), Some(attempt), Some(text)) => {
                self.finish_json(&call_id, entry, attempt, text, opts, depth)
                    .await
            }
            (Ok(entry), ..) => match entry.prepare(arguments, !opts.strict) {
                Err(e) => Box::new(Outcome::from_error(e)),
                Ok((args, conversions)) => {
                    coerced = conversions;
                    self.call_prepared(&call_id, entry, args, opts, (depth, start))
                        .await
                }
            },
        };
        // A fallback that answered names itself in `meta.tool`; its spec sets the budget.
        let fallback_entry = out
            .meta
            .fallback_from
            .is_some()
            .then(|| inner.registry.get(&out.meta.tool))
            .flatten();
        let answered = fallback_entry.as_ref().or(entry.as_ref().ok().copied());
        let (spec, tool) = match (&fallback_entry, &entry) {
            (Some(f), _) => (Some(f.spec()), f.name().clone()),
            (None, Ok(e)) => (spec, e.name().clone()),
            (None, Err(_)) => (spec, toolwright_core::called_name(&call.name)),
        };
        // The answering tool's "X succeeded.", made when it was registered (no allocation).
        let unsaid = out.message.is_empty() && out.status() == toolwright_core::Status::Success;
        if let Some(e) = answered.filter(|_| unsaid) {
            out.message = e.success_message().clone();
        }
        let names = CallNames { tool, call_id };
        finish_in_place(&mut out, spec, names, start.elapsed(), coerced);
        if tracked {
            inner
                .budgets
                .end(session, opts.step, &call.name, attempt, &mut out);
        } else {
            out.meta.attempt = 1;
            out.meta.attempts_left = max.saturating_sub(1);
        }
        out
    }
}

impl Runtime {
    /// One validated call: the direct path when every policy above the retries lets it straight
    /// through, else the policy stack. `depth` is how deep tools called tools; `start`, when the
    /// call started (the direct path's deadline counts from it).
    async fn call_prepared(
        &self,
        call_id: &SharedStr,
        entry: &Arc<toolwright_core::ToolEntry>,
        args: serde_json::Value,
        opts: &CallOptions,
        (depth, start): (u32, quanta::Instant),
    ) -> Box<Outcome> {
        let inner = &self.inner;
        let mut req = self.request(call_id, entry, Arc::new(args), opts);
        let Some(direct) = inner.direct.as_ref().filter(|d| d.takes(&req)) else {
            // A fallback may swap in a tool that uses its context: the stack's requests carry
            // the invoker and a signal whatever the first tool is.
            req.invoker = self.invoker(depth);
            if req.cancel.is_inert() {
                req.cancel = CancelSignal::new();
            }
            return Box::new(inner.stack.call(req).await);
        };
        // The direct path runs this tool only (no fallback): its invoker, if it uses one.
        if entry.uses_context() {
            req.invoker = self.invoker(depth);
        }
        // A call that may run again keeps its arguments (the one thing its request is made of
        // that this function does not hold) to make the retries' request anew.
        let rerun = direct.reruns(&req);
        let mut attempt = direct.call(req, start, rerun);
        let first = (&mut attempt).await;
        match attempt.take_args() {
            Some(args) if Direct::wants_retries(&first) => {
                let mut req = self.request(call_id, entry, args, opts);
                if entry.uses_context() {
                    req.invoker = self.invoker(depth);
                }
                Box::new(direct.retries(req, *first).await)
            }
            _ => first,
        }
    }

    /// The first attempt of a call of `entry` from its arguments' JSON `text`, when the call
    /// takes the direct path and the tool takes the text ([`Direct::call_json`]); `None`
    /// (nothing ran) otherwise. The context is the one [`Runtime::request`] and the direct
    /// path's request would give the tool.
    fn start_json(
        &self,
        call_id: &SharedStr,
        entry: &Arc<toolwright_core::ToolEntry>,
        text: &str,
        opts: &CallOptions,
        (depth, start): (u32, quanta::Instant),
    ) -> Option<direct::DirectCall> {
        let direct = self.inner.direct.as_ref()?;
        if !entry.takes_json() || !direct.takes_unkeyed(entry, opts.approved) {
            return None;
        }
        let invoker = if entry.uses_context() {
            self.invoker(depth)
        } else {
            None
        };
        let ctx = service::tool_context(
            call_id.clone(),
            entry,
            (opts.session_id.clone(), opts.step, opts.approved),
            signal_for(entry, opts),
            invoker,
        );
        direct.call_json(entry, ctx, text, start)
    }

    /// The rest of a call started by [`Runtime::start_json`]: its first attempt, and the
    /// retries (from the text parsed again: the typed path took it, so it is valid JSON the
    /// schema admits as it is) when the first failed transiently and the call may run again.
    async fn finish_json(
        &self,
        call_id: &SharedStr,
        entry: &Arc<toolwright_core::ToolEntry>,
        mut attempt: direct::DirectCall,
        text: &str,
        opts: &CallOptions,
        depth: u32,
    ) -> Box<Outcome> {
        let first = (&mut attempt).await;
        let Some(direct) = self.inner.direct.as_ref() else {
            return first;
        };
        if !(direct.reruns_unkeyed(entry) && Direct::wants_retries(&first)) {
            return first;
        }
        let Ok(args) = serde_json::from_str::<serde_json::Value>(text) else {
            return first;
        };
        let mut req = self.request(call_id, entry, Arc::new(args), opts);
        if entry.uses_context() {
            req.invoker = self.invoker(depth);
        }
        Box::new(direct.retries(req, *first).await)
    }

    /// The invoker of tools called at `depth` (what [`ToolContext::call_tool`] reaches).
    fn invoker(&self, depth: u32) -> Option<Arc<dyn Invoker>> {
        self.inner.invokers.get(depth as usize).cloned()
    }

    /// The request of a validated call, with a signal of its own (a child of the host's token,
    /// if any), which the deadline may cancel; without an invoker (the caller gives it when
    /// the tool may use one: [`Runtime::invoker`]). A tool that never looks at its context,
    /// called without a host token, gets an inert signal: the deadline stops it by dropping its
    /// future, and no one else would watch the signal (the caller makes a real one for the
    /// policy stack, where a fallback may run another tool).
    #[inline(always)]
    fn request(
        &self,
        call_id: &SharedStr,
        entry: &Arc<toolwright_core::ToolEntry>,
        args: Arc<serde_json::Value>,
        opts: &CallOptions,
    ) -> Request {
        let cancel = signal_for(entry, opts);
        let mut req = Request::named(call_id.clone(), entry.clone(), args, cancel);
        req.session_id = opts.session_id.clone();
        req.step = opts.step;
        req.approved = opts.approved;
        req.caller = opts.caller.clone();
        req
    }
}

/// The signal of a call of `entry` (see [`Runtime::request`]).
#[inline(always)]
fn signal_for(entry: &toolwright_core::ToolEntry, opts: &CallOptions) -> CancelSignal {
    match &opts.cancel {
        Some(host) => CancelSignal::child_of(host.clone()),
        None if !entry.uses_context() => CancelSignal::inert(),
        None => CancelSignal::new(),
    }
}

/// The arguments of [`Runtime::invoke_json`] as [`Runtime::invoke`] takes them: the parsed
/// text, or the text itself as a string when it is not JSON (as providers pass such arguments
/// on; validation then reports that they are not an object).
fn parse_arguments(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::String(text.to_string()))
}

/// The envelope of a call stopped before it was resolved (too deep, or cancelled by the host).
fn refused(e: ToolError, call: &ToolCall, start: quanta::Instant) -> Box<Outcome> {
    Box::new(finish(
        Outcome::from_error(e),
        None,
        call,
        start.elapsed(),
        Vec::new(),
    ))
}

/// Counts a running call until dropped (also when the caller drops the call's future).
struct Counted<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> Counted<'a> {
    fn new(n: &'a std::sync::atomic::AtomicUsize) -> Self {
        n.fetch_add(1, Ordering::AcqRel);
        Counted(n)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What [`ToolContext::call_tool`] reaches: the runtime, one level deeper. It holds the runtime
/// weakly (the runtime holds it).
struct ChildInvoker {
    runtime: std::sync::Weak<Inner>,
    depth: u32,
}

fn child_options(parent: &ToolContext) -> CallOptions {
    CallOptions {
        // A parent's approval does not approve what it calls.
        approved: false,
        session_id: parent.session_id.clone(),
        step: parent.step,
        strict: false,
        cancel: Some(parent.cancel.child_token()),
        caller: None,
    }
}

impl Invoker for ChildInvoker {
    fn invoke_call(&self, call: ToolCall, parent: &ToolContext) -> BoxFuture<'static, Outcome> {
        let rt = self.runtime.upgrade().map(|inner| Runtime { inner });
        let depth = self.depth;
        let opts = child_options(parent);
        Box::pin(async move {
            match rt {
                Some(rt) => *rt.invoke_at(call, None, &opts, depth).await,
                None => Outcome::from_error(ToolError::internal("the runtime was shut down")),
            }
        })
    }
}

impl Invoker for Runtime {
    /// Runs `call` in `parent`'s session and step, sharing budgets, idempotency and policies.
    fn invoke_call(&self, call: ToolCall, parent: &ToolContext) -> BoxFuture<'static, Outcome> {
        let rt = self.clone();
        let opts = child_options(parent);
        Box::pin(async move { *rt.invoke_at(call, None, &opts, 1).await })
    }
}
