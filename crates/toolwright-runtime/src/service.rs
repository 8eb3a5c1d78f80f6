//! The one contract every policy shares: a [`Service`] turns a validated [`Request`] into an
//! [`Outcome`], and a policy is a service that wraps another one (tower's `Service`/`Layer`,
//! without the readiness part).
//!
//! The innermost service, [`ToolService`], runs the tool on its own task with panics caught. The
//! policies in this crate ([`crate::ConfirmationLayer`], [`crate::IdempotencyLayer`],
//! [`crate::FallbackLayer`], [`crate::RetryLayer`], [`crate::TimeoutLayer`]) each wrap an inner
//! service and can be tested alone around a stub made with [`service_fn`].

use futures::future::BoxFuture;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use toolwright_core::CancelSignal;
use toolwright_core::blocking::BlockingWatch;
use toolwright_core::{
    GuardedCall, Invoker, Outcome, SharedStr, ToolCall, ToolContext, ToolEntry, ToolError,
};

/// One call after name resolution and argument validation, on its way through the policies.
///
/// A clone gets a fresh cancellation signal with the same parent (the host's token, if any), so
/// a deadline that cancelled one attempt does not cancel the next; [`Request::share`] shares it.
pub struct Request {
    /// The call's id as the tool's context and the envelope carry it ([`Request::call_id`]).
    pub(crate) call_id: SharedStr,
    /// The tool that runs (a fallback replaces it).
    pub entry: Arc<ToolEntry>,
    /// The validated (and possibly coerced) arguments, shared: a policy that may run the call
    /// again keeps a handle instead of a copy.
    pub args: Arc<Value>,
    /// Session (conversation) the call belongs to.
    pub session_id: Option<String>,
    /// Agent step.
    pub step: u32,
    /// A host approved this call ahead of time.
    pub approved: bool,
    /// Who asks (e.g. a hash of an HTTP client's bearer token); per-caller rate limits count it.
    pub caller: Option<String>,
    /// Cancelled when the host cancels (the signal's parent) or at the attempt's deadline.
    pub cancel: CancelSignal,
    /// Used by [`ToolContext::call_tool`] inside the tool.
    pub invoker: Option<Arc<dyn Invoker>>,
    /// The idempotency key in force, once the idempotency policy has settled it.
    pub idempotency_key: Option<String>,
    /// Counts the sync bodies this attempt left running (set by the deadline policy).
    pub(crate) watch: Option<BlockingWatch>,
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("call_id", &self.call_id)
            .field("tool", &self.entry.spec().name)
            .field("args", &self.args)
            .field("session_id", &self.session_id)
            .field("step", &self.step)
            .field("approved", &self.approved)
            .field("idempotency_key", &self.idempotency_key)
            .finish_non_exhaustive()
    }
}

impl Clone for Request {
    /// Like [`Request::share`], except that the copy gets a fresh signal with the same parent
    /// (the next attempt's: the deadline of this one may have cancelled its signal).
    fn clone(&self) -> Self {
        let mut copy = self.share();
        copy.cancel = self.cancel.fresh();
        copy
    }
}

impl Request {
    /// A request for `entry` with validated `args`, no session, step 0, not approved. The
    /// call's own `arguments` are dropped (the request carries `args`).
    pub fn new(call: ToolCall, entry: Arc<ToolEntry>, args: impl Into<Arc<Value>>) -> Self {
        Request::with_cancel(call, entry, args, CancelSignal::new())
    }

    /// [`Request::new`] watching `cancel` (a [`CancelSignal`], or a host's tokio-util token:
    /// the request's signal is then cancelled with it, and cancelling the request's signal
    /// leaves the host's token alone).
    pub fn with_cancel(
        call: ToolCall,
        entry: Arc<ToolEntry>,
        args: impl Into<Arc<Value>>,
        cancel: impl Into<CancelSignal>,
    ) -> Self {
        let call_id = call.id;
        Request::named(call_id, entry, args.into(), cancel.into())
    }

    /// [`Request::with_cancel`] with the call's id already shared.
    pub(crate) fn named(
        call_id: SharedStr,
        entry: Arc<ToolEntry>,
        args: Arc<Value>,
        cancel: CancelSignal,
    ) -> Self {
        Request {
            call_id,
            entry,
            args,
            session_id: None,
            step: 0,
            approved: false,
            caller: None,
            cancel,
            invoker: None,
            idempotency_key: None,
            watch: None,
        }
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The name of the tool that runs.
    pub fn tool_name(&self) -> &str {
        &self.entry.spec().name
    }

    /// The idempotency key the arguments carry (`idempotency_key`, a non-empty string), if any.
    pub fn explicit_key(&self) -> Option<&str> {
        explicit_key(&self.args)
    }

    /// A copy for the first attempt of a call that may be run again: it shares the signal (a
    /// clone gets a fresh one, for the next attempt).
    pub(crate) fn share(&self) -> Request {
        Request {
            call_id: self.call_id.clone(),
            entry: self.entry.clone(),
            args: self.args.clone(),
            session_id: self.session_id.clone(),
            step: self.step,
            approved: self.approved,
            caller: self.caller.clone(),
            cancel: self.cancel.clone(),
            invoker: self.invoker.clone(),
            idempotency_key: self.idempotency_key.clone(),
            watch: self.watch.clone(),
        }
    }

    /// The context the tool receives, the request's parts moved into it (no copy of the
    /// signal, session or invoker); with the tool, its arguments and the attempt's watch.
    fn into_parts(
        self,
    ) -> (
        ToolContext,
        Arc<ToolEntry>,
        Arc<Value>,
        Option<BlockingWatch>,
    ) {
        let Request {
            call_id,
            entry,
            args,
            session_id,
            step,
            approved,
            cancel,
            invoker,
            watch,
            ..
        } = self;
        let ctx = tool_context(
            call_id,
            &entry,
            (session_id, step, approved),
            cancel,
            invoker,
        );
        (ctx, entry, args, watch)
    }

    /// The context the tool receives.
    pub fn context(&self) -> ToolContext {
        let mut ctx = ToolContext::for_call(
            self.call_id.clone(),
            self.entry.name().clone(),
            self.cancel.clone(),
        )
        .with_states(self.entry.states.clone());
        ctx.session_id = self.session_id.clone();
        ctx.step = self.step;
        ctx.approved = self.approved;
        match &self.invoker {
            Some(inv) => ctx.with_invoker(inv.clone()),
            None => ctx,
        }
    }
}

/// The context the tool of `entry` receives for call `call_id` in `(session, step, approved)`,
/// watching `cancel`: what a request's parts make (also for a call run from its raw JSON, which
/// has no request).
#[inline(always)]
pub(crate) fn tool_context(
    call_id: SharedStr,
    entry: &ToolEntry,
    (session_id, step, approved): (Option<String>, u32, bool),
    cancel: CancelSignal,
    invoker: Option<Arc<dyn Invoker>>,
) -> ToolContext {
    let mut ctx = ToolContext::for_call(call_id, entry.name().clone(), cancel);
    // A tool that reads neither state nor the invoker is spared their reference counts.
    if entry.uses_context() {
        ctx = ctx.with_states(entry.states.clone());
    }
    ctx.session_id = session_id;
    ctx.step = step;
    ctx.approved = approved;
    if let Some(inv) = invoker {
        ctx = ctx.with_invoker(inv);
    }
    ctx
}

/// The `idempotency_key` argument, when it is a non-empty string.
pub fn explicit_key(args: &Value) -> Option<&str> {
    let map = args.as_object()?;
    // Every call asks: a few keys are compared faster than the key is hashed.
    let key = if map.len() <= 8 {
        map.iter()
            .find_map(|(k, v)| (k == "idempotency_key").then_some(v))
    } else {
        map.get("idempotency_key")
    };
    key.and_then(Value::as_str).filter(|k| !k.is_empty())
}

/// Something that answers a [`Request`] with an [`Outcome`]. Policies are services wrapping
/// services.
pub trait Service: Send + Sync + 'static {
    /// Handles one request. Never panics; failures are error envelopes.
    fn call(&self, req: Request) -> BoxFuture<'static, Outcome>;
}

/// A shared, type-erased service.
pub type BoxService = Arc<dyn Service>;

/// Wraps a service in a policy.
pub trait Layer {
    /// The wrapped service.
    fn layer(&self, inner: BoxService) -> BoxService;
}

/// A service from a closure, for tests and small adapters.
///
/// ```
/// use toolwright_runtime::service::{service_fn, Service};
/// use toolwright_core::Outcome;
/// let s = service_fn(|_req| async { Outcome::success(serde_json::json!(1)) });
/// # let _ = s;
/// ```
pub fn service_fn<F, Fut>(f: F) -> BoxService
where
    F: Fn(Request) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Outcome> + Send + 'static,
{
    Arc::new(ServiceFn(f))
}

struct ServiceFn<F>(F);

impl<F, Fut> Service for ServiceFn<F>
where
    F: Fn(Request) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Outcome> + Send + 'static,
{
    fn call(&self, req: Request) -> BoxFuture<'static, Outcome> {
        Box::pin((self.0)(req))
    }
}

/// The innermost service: runs the tool with panics caught by [`run_guarded_shared`].
///
/// By default ([`ToolService::inline`]) the tool is polled in the caller's task, like a tower or
/// axum handler: the deadline around it cancels an async tool by dropping its future, and sync
/// `#[tool]` functions already run on the blocking pool, so neither can hold up the answer.
/// [`ToolService::isolated`] (the runtime builder's `isolate_tools(true)`) runs each call on its
/// own tokio task instead, for hosts that run async tools which may block their thread: another
/// worker then answers at the deadline, and dropping the returned future aborts the task. It
/// costs a task spawn and a cross-thread wake per call (2.2 → 19.3 µs for a no-op call on a
/// 2-worker runtime here, `cargo bench -p toolwright-runtime --bench runtime -- noop-call`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolService {
    isolate: bool,
}

impl ToolService {
    /// Each call on its own task.
    pub fn isolated() -> Self {
        ToolService { isolate: true }
    }

    /// Each call polled in the caller's task (the default).
    pub fn inline() -> Self {
        ToolService { isolate: false }
    }
}

impl Service for ToolService {
    fn call(&self, req: Request) -> BoxFuture<'static, Outcome> {
        let run = run_inline(req);
        if !self.isolate {
            return Box::pin(run);
        }
        Box::pin(async move {
            let task = AbortOnDrop(tokio::spawn(run));
            task.join().await
        })
    }
}

/// Runs the tool of `req` in the caller's task with panics caught, the attempt's watch (if the
/// deadline set one) in scope: [`ToolService::inline`]'s future, also awaited unboxed by the
/// runtime's direct path.
#[inline(always)]
pub(crate) fn run_inline(req: Request) -> GuardedCall {
    let (ctx, entry, args, watch) = req.into_parts();
    GuardedCall::new(entry, args, ctx, watch)
}

/// A spawned task that is aborted when its handle is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<Outcome>);

impl AbortOnDrop {
    async fn join(mut self) -> Outcome {
        match (&mut self.0).await {
            Ok(out) => out,
            Err(e) if e.is_cancelled() => {
                Outcome::from_error(ToolError::cancelled("The tool was cancelled."))
            }
            Err(e) => Outcome::from_error(ToolError::internal(format!("tool task failed: {e}"))),
        }
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
