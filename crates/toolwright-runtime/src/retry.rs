//! Automatic retries of transient failures, with exponential backoff and full jitter.
//!
//! Only `RATE_LIMITED` (waiting at least its `retry_after_ms`), `TIMEOUT` (once) and
//! `DEPENDENCY_UNAVAILABLE` (unless the tool has a fallback, which answers sooner) are retried,
//! and only when re-running is safe: the tool is read-only or idempotent, or the call carries an
//! idempotency key. A `write`/`destructive` tool without a key is never re-run automatically.
//! The number of retries made is reported in `meta.retries`.

use crate::service::{BoxService, Layer, Request, Service};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;
use toolwright_core::{ErrorCode, Outcome};

/// How automatic retries back off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 turns automatic retries off).
    pub max_retries: u32,
    /// The first backoff; each retry doubles it.
    pub base_delay: Duration,
    /// No single wait is longer than this; a `retry_after_ms` above it is not waited for.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0-based): `base * 2^retry`, jittered into
    /// `[half, full]`, at least `retry_after`, at most `max_delay`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retry.min(16)))
            .min(self.max_delay);
        let half = exp / 2;
        let jitter = half.mul_f64(random_unit());
        let backoff = half + jitter;
        retry_after
            .map_or(backoff, |ra| backoff.max(ra))
            .min(self.max_delay)
    }
}

/// A number in `[0, 1)` from the standard library's randomly keyed hasher (no extra crate for
/// jitter).
pub(crate) fn random_unit() -> f64 {
    (random_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A random 64-bit number.
pub(crate) fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// Whether `req` may be re-run automatically (read-only, idempotent, or keyed).
pub fn safe_to_rerun(req: &Request) -> bool {
    req.entry.facts().safe_to_retry || req.idempotency_key.is_some() || req.explicit_key().is_some()
}

/// Whether a failure with `out`'s code is worth an automatic retry, given how many were made.
fn transient(out: &Outcome, retries_made: u32, has_fallback: bool) -> bool {
    if out.meta.still_running {
        // The first attempt may still take effect: a second one could do the work twice.
        return false;
    }
    match out.error_code() {
        Some(ErrorCode::RateLimited) => true,
        Some(ErrorCode::Timeout) => retries_made == 0,
        Some(ErrorCode::DependencyUnavailable) => !has_fallback,
        _ => false,
    }
}

/// Retries transient failures of calls that are safe to re-run (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct RetryLayer {
    policy: RetryPolicy,
}

impl RetryLayer {
    /// A layer with `policy`.
    pub fn new(policy: RetryPolicy) -> Self {
        RetryLayer { policy }
    }
}

impl Layer for RetryLayer {
    fn layer(&self, inner: BoxService) -> BoxService {
        Arc::new(Retry {
            inner,
            policy: self.policy,
        })
    }
}

struct Retry {
    inner: BoxService,
    policy: RetryPolicy,
}

impl Service for Retry {
    fn call(&self, req: Request) -> BoxFuture<'static, Outcome> {
        let safe = safe_to_rerun(&req);
        if !safe || self.policy.max_retries == 0 {
            // Never re-run: straight through, the request is not kept.
            return self.inner.call(req);
        }
        let inner = self.inner.clone();
        let policy = self.policy;
        // The first attempt shares the request's signal; the retry loop, with its backoff timer,
        // is a future of its own, made only when a transient failure asks for it, so a call
        // that succeeds moves a small future.
        Box::pin(async move {
            let out = inner.call(req.share()).await;
            if !again(&req, &out) {
                return out;
            }
            Box::pin(retry_loop(inner, policy, req, out)).await
        })
    }
}

/// Whether a first attempt's answer `out` is a transient failure, for a tool without a
/// fallback (the runtime's direct path takes no call that has one); whether the host cancelled
/// is asked when the retries start ([`again`]).
pub(crate) fn transient_first(out: &Outcome) -> bool {
    transient(out, 0, false)
}

/// Whether the first attempt's answer `out` to `req` (a request whose first attempt was made
/// with [`Request::share`]) is a transient failure worth running again; the runtime's direct
/// path asks it too.
pub(crate) fn again(req: &Request, out: &Outcome) -> bool {
    let has_fallback = req.entry.facts().has_fallback;
    transient(out, 0, has_fallback) && !host_cancelled(req)
}

/// Whether a host cancelled `req` (the request's own signal is only ever cancelled by the
/// deadline of an attempt).
fn host_cancelled(req: &Request) -> bool {
    req.cancel.parent_cancelled()
}

/// Waits and runs `req` again through `inner` while its failures are transient, from the first
/// attempt's answer `out`.
pub(crate) async fn retry_loop(
    inner: BoxService,
    policy: RetryPolicy,
    req: Request,
    mut out: Outcome,
) -> Outcome {
    let has_fallback = req.entry.facts().has_fallback;
    // The first attempt's deadline may have cancelled the request's signal: the next attempts
    // get fresh ones (`Request::clone`), with the same parent.
    let req = req.clone();
    let mut retries = 0u32;
    loop {
        let again = retries < policy.max_retries
            && transient(&out, retries, has_fallback)
            && !req.cancel.is_cancelled();
        if !again {
            out.meta.retries = out.meta.retries.saturating_add(retries);
            return out;
        }
        let retry_after = out
            .error()
            .as_ref()
            .and_then(|e| e.retry_after_ms)
            .map(Duration::from_millis);
        if retry_after.is_some_and(|ra| ra > policy.max_delay) {
            // Waiting that long is the model's (or the user's) call, not ours.
            out.meta.retries = out.meta.retries.saturating_add(retries);
            return out;
        }
        let wait = policy.delay(retries, retry_after);
        tracing::info!(
            tool = %req.tool_name(),
            code = ?out.error_code(),
            wait_ms = wait.as_millis() as u64,
            "retrying a transient failure"
        );
        tokio::select! {
            () = req.cancel.cancelled() => {
                out.meta.retries = out.meta.retries.saturating_add(retries);
                return out;
            }
            () = tokio::time::sleep(wait) => {}
        }
        retries += 1;
        out = inner.call(req.clone()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::service_fn;
    use serde_json::json;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Instant;
    use toolwright_core::{
        FnTool, SideEffects, ToolCall, ToolEntry, ToolError, ToolOutput, ToolSpec,
    };

    fn entry(effects: SideEffects) -> Arc<ToolEntry> {
        let spec = ToolSpec::new(
            "t",
            "Test. Use this when testing.",
            json!({"type": "object", "properties": {"idempotency_key": {"type": "string"}}}),
        )
        .side_effects(effects);
        let tool = FnTool::new(spec, |_, _| async { Ok(ToolOutput::Data(json!(null))) });
        Arc::new(ToolEntry::new(Arc::new(tool)).unwrap())
    }

    fn flaky(fail_times: u32, err: ToolError) -> (BoxService, Arc<AtomicU32>) {
        let runs = Arc::new(AtomicU32::new(0));
        let r = runs.clone();
        let svc = service_fn(move |_req| {
            let n = r.fetch_add(1, Ordering::SeqCst);
            let err = err.clone();
            async move {
                if n < fail_times {
                    Outcome::from_error(err)
                } else {
                    Outcome::success(json!("ok"))
                }
            }
        });
        (svc, runs)
    }

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(200),
        }
    }

    fn req(entry: Arc<ToolEntry>, args: serde_json::Value) -> Request {
        Request::new(ToolCall::new("c", "t", args.clone()), entry, args)
    }

    #[tokio::test]
    async fn read_only_tools_are_retried_and_retries_are_counted() {
        let (inner, runs) = flaky(2, ToolError::dependency_unavailable("down", "later"));
        let svc = RetryLayer::new(policy()).layer(inner);
        let out = svc.call(req(entry(SideEffects::Read), json!({}))).await;
        assert_eq!(out.status(), toolwright_core::Status::Success);
        assert_eq!(out.meta.retries, 2);
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn write_tools_without_a_key_are_never_rerun() {
        let (inner, runs) = flaky(1, ToolError::timeout("slow"));
        let svc = RetryLayer::new(policy()).layer(inner);
        let out = svc.call(req(entry(SideEffects::Write), json!({}))).await;
        assert_eq!(out.error_code(), Some(ErrorCode::Timeout));
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(out.meta.retries, 0);
    }

    #[tokio::test]
    async fn a_key_makes_a_write_safe_to_retry() {
        let (inner, runs) = flaky(1, ToolError::timeout("slow"));
        let svc = RetryLayer::new(policy()).layer(inner);
        let out = svc
            .call(req(
                entry(SideEffects::Write),
                json!({"idempotency_key": "k"}),
            ))
            .await;
        assert!(!out.is_error());
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn timeouts_are_retried_once_only() {
        let (inner, runs) = flaky(5, ToolError::timeout("slow"));
        let svc = RetryLayer::new(policy()).layer(inner);
        let out = svc.call(req(entry(SideEffects::Read), json!({}))).await;
        assert_eq!(out.error_code(), Some(ErrorCode::Timeout));
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        assert_eq!(out.meta.retries, 1);
    }

    #[tokio::test]
    async fn rate_limits_wait_at_least_retry_after() {
        let (inner, runs) = flaky(1, ToolError::rate_limited("slow down", 40));
        let svc = RetryLayer::new(policy()).layer(inner);
        let start = Instant::now();
        let out = svc.call(req(entry(SideEffects::Read), json!({}))).await;
        assert!(!out.is_error());
        assert!(start.elapsed() >= Duration::from_millis(40));
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn other_errors_are_not_retried() {
        let (inner, runs) = flaky(1, ToolError::not_found("gone", "ask"));
        let svc = RetryLayer::new(policy()).layer(inner);
        let out = svc.call(req(entry(SideEffects::Read), json!({}))).await;
        assert_eq!(out.error_code(), Some(ErrorCode::NotFound));
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(500),
        };
        for _ in 0..50 {
            let d0 = p.delay(0, None);
            assert!(d0 >= Duration::from_millis(50) && d0 <= Duration::from_millis(100));
            let d2 = p.delay(2, None);
            assert!(d2 >= Duration::from_millis(200) && d2 <= Duration::from_millis(400));
            assert!(p.delay(10, None) <= Duration::from_millis(500));
            assert_eq!(
                p.delay(0, Some(Duration::from_millis(300))),
                Duration::from_millis(300)
            );
        }
    }
}
