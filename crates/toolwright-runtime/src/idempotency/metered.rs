//! A store wrapper that times every round trip and counts failures through the `metrics` facade
//! (`toolwright_store_duration_seconds`, `toolwright_store_errors_total`, by backend and
//! operation). The runtime wraps its store in it when metrics are exported.

use super::{IdempotencyStore, Record, Reservation, StoreError};
use crate::confirm::PendingApproval;
use crate::metrics::names;
use crate::shared::{RateDecision, SharedState};
use futures::future::BoxFuture;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright_core::{Outcome, RateLimit};

/// Times the operations of the store it wraps (see the module docs).
#[derive(Debug)]
pub struct MeteredStore {
    inner: Arc<dyn IdempotencyStore>,
}

impl MeteredStore {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn IdempotencyStore>) -> Self {
        MeteredStore { inner }
    }

    fn timed<'a, T: 'a>(
        &self,
        op: &'static str,
        fut: BoxFuture<'a, Result<T, StoreError>>,
    ) -> BoxFuture<'a, Result<T, StoreError>> {
        let backend = self.inner.backend();
        Box::pin(measure(backend, op, fut))
    }
}

async fn measure<T>(
    backend: &'static str,
    op: &'static str,
    fut: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let start = Instant::now();
    let out = fut.await;
    metrics::histogram!(names::STORE_DURATION, "backend" => backend, "op" => op)
        .record(start.elapsed().as_secs_f64());
    if out.is_err() {
        metrics::counter!(names::STORE_ERRORS, "backend" => backend, "op" => op).increment(1);
    }
    out
}

impl IdempotencyStore for MeteredStore {
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }

    fn reserve<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        owner: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        self.timed(
            "reserve",
            self.inner.reserve(key, fingerprint, owner, lease),
        )
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        outcome: &'a Outcome,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.timed(
            "complete",
            self.inner.complete(key, fingerprint, outcome, ttl),
        )
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.timed("release", self.inner.release(key, owner))
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Record>, StoreError>> {
        self.timed("get", self.inner.get(key))
    }
}

impl SharedState for MeteredStore {
    fn approval_put<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.timed("approval_put", self.inner.approval_put(pending, ttl))
    }

    fn approval_grant<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<PendingApproval>, StoreError>> {
        self.timed("approval_grant", self.inner.approval_grant(id, ttl))
    }

    fn approval_remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.timed("approval_remove", self.inner.approval_remove(id))
    }

    fn approval_take<'a>(
        &'a self,
        id: &'a str,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.timed("approval_take", self.inner.approval_take(id, session))
    }

    fn approvals(&self) -> BoxFuture<'_, Result<Vec<PendingApproval>, StoreError>> {
        self.timed("approvals", self.inner.approvals())
    }

    fn rate_acquire<'a>(
        &'a self,
        key: &'a str,
        limit: &'a RateLimit,
    ) -> BoxFuture<'a, Result<RateDecision, StoreError>> {
        self.timed("rate_acquire", self.inner.rate_acquire(key, limit))
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        self.timed("ping", self.inner.ping())
    }
}
