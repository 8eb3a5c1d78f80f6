//! Rate limits from the tool's `rate_limit` metadata, counted in the runtime's store so they
//! hold across every replica that shares it (see [`crate::shared`]).
//!
//! The policy sits inside idempotency: a replayed result is not a run and costs nothing, and a
//! call refused here is not stored, so the same key can be retried after `retry_after_ms`. A
//! store that does not answer refuses the call with `DEPENDENCY_UNAVAILABLE` (a limit that
//! cannot be checked is not waived).

use crate::idempotency::IdempotencyStore;
use crate::service::{BoxService, Layer, Request, Service};
use crate::shared::RateDecision;
use futures::future::BoxFuture;
use std::sync::Arc;
use toolwright_core::{ErrorCode, Outcome, ToolError};

/// The rate-limit policy (see the module docs).
#[derive(Debug, Clone)]
pub struct RateLimitLayer {
    store: Arc<dyn IdempotencyStore>,
}

impl RateLimitLayer {
    /// Counts calls in `store`.
    pub fn new(store: Arc<dyn IdempotencyStore>) -> Self {
        RateLimitLayer { store }
    }
}

impl Layer for RateLimitLayer {
    fn layer(&self, inner: BoxService) -> BoxService {
        Arc::new(Limiter {
            inner,
            store: self.store.clone(),
        })
    }
}

struct Limiter {
    inner: BoxService,
    store: Arc<dyn IdempotencyStore>,
}

/// The store key of a call's limit: the tool, and the caller when the limit is per caller.
fn limit_key(req: &Request, per_caller: bool) -> String {
    let tool = &req.entry.spec().name;
    match (&req.caller, per_caller) {
        (Some(caller), true) => format!("{tool}|{caller}"),
        _ => tool.clone(),
    }
}

/// Whether `req`'s tool has a rate limit; calls to any other go straight through.
pub(crate) fn limited(req: &Request) -> bool {
    req.entry.facts().rate_limited
}

impl Service for Limiter {
    fn call(&self, req: Request) -> BoxFuture<'static, Outcome> {
        let Some(limit) = req.entry.spec().meta.rate_limit else {
            return self.inner.call(req);
        };
        let (inner, store) = (self.inner.clone(), self.store.clone());
        Box::pin(async move {
            let key = limit_key(&req, limit.per_caller);
            match store.rate_acquire(&key, &limit).await {
                Ok(RateDecision::Allowed) => inner.call(req).await,
                Ok(RateDecision::Limited { retry_after_ms }) => {
                    let tool = &req.entry.spec().name;
                    Outcome::from_error(ToolError::rate_limited(
                        format!(
                            "{tool} may run {} times per {} ms and that rate is used up; it was \
                             not run.",
                            limit.calls, limit.period_ms
                        ),
                        retry_after_ms,
                    ))
                }
                Err(e) => Outcome::from_error(
                    ToolError::new(
                        ErrorCode::DependencyUnavailable,
                        format!("The rate-limit store is unreachable ({e}); the call was not run."),
                    )
                    .with_suggestion("Try again shortly; nothing was done."),
                ),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use crate::service::service_fn;
    use serde_json::json;
    use std::sync::atomic::{AtomicU32, Ordering};
    use toolwright_core::{FnTool, RateLimit, ToolCall, ToolEntry, ToolOutput, ToolSpec};

    #[tokio::test]
    async fn calls_over_the_limit_are_refused_with_a_wait_and_do_not_run() {
        let runs = Arc::new(AtomicU32::new(0));
        let r = runs.clone();
        let inner = service_fn(move |_req| {
            r.fetch_add(1, Ordering::SeqCst);
            async { Outcome::success(json!("sent")) }
        });
        let svc = RateLimitLayer::new(Arc::new(MemoryStore::new())).layer(inner);
        let mut spec = ToolSpec::new(
            "send_sms",
            "Send a text message. Use this when the user asks to text someone.",
            json!({"type": "object"}),
        );
        spec.meta.rate_limit = Some(RateLimit {
            calls: 2,
            period_ms: 60_000,
            burst: None,
            per_caller: true,
        });
        let tool = FnTool::new(spec, |_, _| async { Ok(ToolOutput::Data(json!(null))) });
        let entry = Arc::new(ToolEntry::new(Arc::new(tool)).unwrap());
        let req = |caller: &str| {
            let mut r = Request::new(
                ToolCall::new("c", "send_sms", json!({})),
                entry.clone(),
                json!({}),
            );
            r.caller = Some(caller.to_string());
            r
        };
        for _ in 0..2 {
            assert_eq!(svc.call(req("alice")).await.error_code(), None);
        }
        let out = svc.call(req("alice")).await;
        assert_eq!(out.error_code(), Some(ErrorCode::RateLimited));
        let wait = out.error().and_then(|e| e.retry_after_ms).unwrap();
        assert!((1..=30_000).contains(&wait), "{wait}");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // Another caller has its own budget.
        assert_eq!(svc.call(req("bob")).await.error_code(), None);
    }
}
