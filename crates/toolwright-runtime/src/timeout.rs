//! Deadlines that cancel: the tool's `timeout_ms`, else its `sla_ms`, else a runtime default.
//!
//! At the deadline the call's cancellation signal is cancelled (tools that watch
//! [`toolwright_core::ToolContext::cancelled`] stop cooperatively) and the inner future is
//! dropped, which aborts the tool's task. The answer is a `TIMEOUT` envelope at the deadline, not
//! when the tool gets round to noticing. A host cancelling its token (the signal's parent) gets
//! `CANCELLED`.

use crate::service::{BoxService, Layer, Request, Service};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use toolwright_core::CancelSignal;
use toolwright_core::blocking::BlockingWatch;
use toolwright_core::{Outcome, ToolError, ToolSpec};

/// The deadline used when a tool declares neither `timeout_ms` nor `sla_ms`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The deadline for one attempt of `spec`: `timeout_ms`, else `sla_ms`, else `default`.
pub fn deadline_for(spec: &ToolSpec, default: Duration) -> Duration {
    limit(spec.meta.timeout_ms, spec.meta.sla_ms, default)
}

/// `timeout_ms`, else `sla_ms`, else `default`.
fn limit(timeout_ms: Option<u64>, sla_ms: Option<u64>, default: Duration) -> Duration {
    timeout_ms.or(sla_ms).map_or(default, Duration::from_millis)
}

/// Adds a deadline to every call (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct TimeoutLayer {
    default: Duration,
}

impl TimeoutLayer {
    /// A layer whose deadline for tools without their own is `default`.
    pub fn new(default: Duration) -> Self {
        TimeoutLayer { default }
    }
}

impl Default for TimeoutLayer {
    fn default() -> Self {
        TimeoutLayer::new(DEFAULT_TIMEOUT)
    }
}

impl Layer for TimeoutLayer {
    fn layer(&self, inner: BoxService) -> BoxService {
        Arc::new(Timeout {
            inner,
            default: self.default,
        })
    }
}

struct Timeout {
    inner: BoxService,
    default: Duration,
}

impl Service for Timeout {
    fn call(&self, mut req: Request) -> BoxFuture<'static, Outcome> {
        let deadline = Deadline::arm(&mut req, self.default);
        let fut = self.inner.call(req);
        Box::pin(deadline.guard(fut))
    }
}

/// One attempt's deadline, armed on its request: what [`TimeoutLayer`] does around each
/// attempt, also used by the runtime's direct path (which runs the same steps without the
/// boxed layers).
pub(crate) struct Deadline {
    /// The attempt's signal, cancelled at the deadline; its parent is the host's token.
    signal: CancelSignal,
    /// The tool, named in the answer at the deadline. `None` only on the direct path, whose
    /// attempt holds it: [`Deadline::use_entry`] gives it before waiting.
    entry: Option<Arc<toolwright_core::ToolEntry>>,
    /// The attempt's watch. `None` only on the direct path, whose attempt makes its watch when
    /// a sync body starts: [`Deadline::use_watch`] gives it before waiting.
    watch: Option<BlockingWatch>,
    due: Due,
    limit: Duration,
}

/// Where an attempt's time limit counts from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Due {
    /// From this instant of the timer's clock (the layer reads it when it arms).
    From(tokio::time::Instant),
    /// From the call's start, read on the runtime's call clock (the direct path: the timer's
    /// clock is read only when the attempt has to be waited for).
    After(quanta::Instant),
}

impl Due {
    /// The instant of the timer's clock at which `limit` has passed.
    fn deadline(self, limit: Duration) -> tokio::time::Instant {
        match self {
            Due::From(start) => start + limit,
            Due::After(start) => {
                tokio::time::Instant::now() + limit.saturating_sub(start.elapsed())
            }
        }
    }
}

impl Deadline {
    /// The deadline of `req`'s tool (`default` when it declares none), from now. The tool's
    /// signal (the request's) is cancelled at the deadline (which leaves a host's token alone);
    /// sync bodies it starts are counted on the attempt's watch.
    pub(crate) fn arm(req: &mut Request, default: Duration) -> Deadline {
        Deadline::arm_from(req, default, Due::From(tokio::time::Instant::now()), false)
    }

    /// [`Deadline::arm`] counting from `due`; when `lazy`, neither a watch is made nor the
    /// tool's entry copied (the caller's attempt makes its watch when a sync body starts and
    /// holds the entry; the caller gives both with [`Deadline::use_watch`] and
    /// [`Deadline::use_entry`] before [`Deadline::wait`]).
    pub(crate) fn arm_from(req: &mut Request, default: Duration, due: Due, lazy: bool) -> Deadline {
        let facts = req.entry.facts();
        let limit = limit(facts.timeout_ms, facts.sla_ms, default);
        let signal = req.cancel.clone();
        let watch = (!lazy).then(BlockingWatch::new);
        req.watch.clone_from(&watch);
        Deadline {
            signal,
            entry: (!lazy).then(|| req.entry.clone()),
            watch,
            due,
            limit,
        }
    }

    /// [`Deadline::arm_from`] with `lazy`, for a call that has no request (one run from its raw
    /// JSON): the deadline of `entry`'s tool watching `signal`, counting from `due`.
    pub(crate) fn arm_lazily(
        entry: &toolwright_core::ToolEntry,
        signal: &CancelSignal,
        default: Duration,
        due: Due,
    ) -> Deadline {
        let facts = entry.facts();
        Deadline {
            signal: signal.clone(),
            entry: None,
            watch: None,
            due,
            limit: limit(facts.timeout_ms, facts.sla_ms, default),
        }
    }

    /// The attempt's watch, when [`Deadline::arm_from`] made none.
    pub(crate) fn use_watch(&mut self, watch: BlockingWatch) {
        if self.watch.is_none() {
            self.watch = Some(watch);
        }
    }

    /// The attempt's tool, when [`Deadline::arm_from`] did not copy it.
    pub(crate) fn use_entry(&mut self, entry: &Arc<toolwright_core::ToolEntry>) {
        if self.entry.is_none() {
            self.entry = Some(entry.clone());
        }
    }

    /// Runs the attempt `fut` under the deadline. A tool that answers on its first poll needs
    /// no timer: the wait, with its timer, is a future of its own, made only when the tool has
    /// to be waited for.
    pub(crate) async fn guard<F>(self, fut: F) -> Outcome
    where
        F: std::future::Future<Output = Outcome>,
    {
        if self.host_cancelled() {
            return cancelled_outcome();
        }
        let mut fut = std::pin::pin!(fut);
        if let Poll::Ready(out) = futures::poll!(fut.as_mut()) {
            return out;
        }
        Box::pin(self.wait(fut)).await
    }

    /// Whether the host cancelled the call before the attempt started (it is not started).
    pub(crate) fn host_cancelled(&self) -> bool {
        self.signal.parent_cancelled()
    }

    /// Waits for the attempt `fut`, which did not answer on its first poll, until it answers,
    /// the host cancels or the deadline passes.
    pub(crate) async fn wait<F>(self, fut: std::pin::Pin<&mut F>) -> Outcome
    where
        F: std::future::Future<Output = Outcome>,
    {
        let Deadline {
            signal,
            entry,
            watch,
            due,
            limit,
        } = self;
        let deadline = due.deadline(limit);
        let host_cancelled = async {
            match signal.parent() {
                Some(h) => h.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = host_cancelled => {
                signal.cancel();
                cancelled_outcome()
            }
            out = fut => out,
            () = tokio::time::sleep_until(deadline) => {
                signal.cancel();
                let name = entry.as_ref().map_or("The tool", |e| e.spec().name.as_str());
                timed_out(name, limit, watch.as_ref())
            }
        }
    }
}

/// The `TIMEOUT` answer. When a sync body of the call is still running (it cannot be
/// cancelled), the answer says so: `meta.still_running`, not retryable, so neither the runtime
/// nor the model starts the work a second time while the first may still take effect.
fn timed_out(name: &str, limit: Duration, watch: Option<&BlockingWatch>) -> Outcome {
    let ms = limit.as_millis();
    if watch.is_none_or(|w| w.running() == 0) {
        tracing::warn!(tool = %name, limit_ms = ms as u64, "tool timed out");
        return Outcome::from_error(
            ToolError::timeout(format!(
                "{name} did not answer within {ms} ms and was cancelled."
            ))
            .with_suggestion("Try a narrower request, or tell the user the tool timed out."),
        );
    }
    tracing::warn!(tool = %name, limit_ms = ms as u64, "tool timed out; its blocking work is still running");
    let mut out = Outcome::from_error(
        ToolError::timeout(format!(
            "{name} did not answer within {ms} ms; its work could not be stopped and may still \
             take effect."
        ))
        .with_suggestion(
            "Do not repeat the call right away; tell the user it timed out and may still complete.",
        )
        .with_retryable(false),
    );
    out.meta.still_running = true;
    out
}

pub(crate) fn cancelled_outcome() -> Outcome {
    Outcome::from_error(ToolError::cancelled("The call was cancelled by the host."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::{ToolService, service_fn};
    use serde_json::json;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Instant;
    use toolwright_core::{ErrorCode, FnTool, ToolCall, ToolEntry, ToolMeta, ToolOutput};

    fn entry_with_timeout(ms: u64, counter: Arc<AtomicU32>) -> Arc<ToolEntry> {
        let spec = ToolSpec::new(
            "slow",
            "Sleeps. Use this when testing.",
            json!({"type": "object"}),
        )
        .with_meta(ToolMeta {
            timeout_ms: Some(ms),
            ..ToolMeta::default()
        });
        let tool = FnTool::new(spec, move |_args, _ctx| {
            let counter = counter.clone();
            async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    counter.fetch_add(1, Ordering::SeqCst);
                }
                #[allow(unreachable_code)]
                Ok(ToolOutput::Data(json!(null)))
            }
        });
        Arc::new(ToolEntry::new(Arc::new(tool)).unwrap())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn deadline_cancels_the_tool_and_answers_on_time() {
        let counter = Arc::new(AtomicU32::new(0));
        let entry = entry_with_timeout(60, counter.clone());
        let svc = TimeoutLayer::default().layer(Arc::new(ToolService::default()));
        let start = Instant::now();
        let out = svc
            .call(Request::new(
                ToolCall::new("c", "slow", json!({})),
                entry,
                json!({}),
            ))
            .await;
        let took = start.elapsed();
        assert_eq!(out.error_code(), Some(ErrorCode::Timeout));
        assert!(took >= Duration::from_millis(60), "{took:?}");
        assert!(took < Duration::from_millis(160), "{took:?}");
        let seen = counter.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            counter.load(Ordering::SeqCst),
            seen,
            "the tool kept running"
        );
    }

    #[test]
    fn deadline_prefers_timeout_then_sla() {
        let mut spec = ToolSpec::new("t", "d", json!({}));
        assert_eq!(deadline_for(&spec, DEFAULT_TIMEOUT), DEFAULT_TIMEOUT);
        spec.meta.sla_ms = Some(200);
        assert_eq!(
            deadline_for(&spec, DEFAULT_TIMEOUT),
            Duration::from_millis(200)
        );
        spec.meta.timeout_ms = Some(50);
        assert_eq!(
            deadline_for(&spec, DEFAULT_TIMEOUT),
            Duration::from_millis(50)
        );
    }

    #[tokio::test]
    async fn host_cancel_answers_cancelled_and_cancels_the_tool_token() {
        let saw_cancel = Arc::new(AtomicU32::new(0));
        let seen = saw_cancel.clone();
        let inner = service_fn(move |req: Request| {
            let seen = seen.clone();
            async move {
                req.cancel.cancelled().await;
                seen.fetch_add(1, Ordering::SeqCst);
                Outcome::success(json!(null))
            }
        });
        let entry = entry_with_timeout(10_000, Arc::new(AtomicU32::new(0)));
        let mut req = Request::new(ToolCall::new("c", "slow", json!({})), entry, json!({}));
        let host = tokio_util::sync::CancellationToken::new();
        req.cancel = toolwright_core::CancelSignal::child_of(host.clone());
        let svc = TimeoutLayer::default().layer(inner);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            host.cancel();
        });
        let out = svc.call(req).await;
        assert_eq!(out.error_code(), Some(ErrorCode::Cancelled));
    }
}
