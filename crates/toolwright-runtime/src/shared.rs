//! What replicas share through the runtime's store besides idempotency records: calls waiting
//! for a person's approval (and approvals not yet used), and rate limits.
//!
//! Every store implements [`SharedState`] next to [`crate::IdempotencyStore`], so N processes
//! pointed at one SQLite file or one Redis database behave as one service: an approval requested
//! through one replica can be granted through another and is used once, and a tool's
//! `rate_limit` holds for all of them together.
//!
//! Rate limits use GCRA (the generic cell rate algorithm): the store keeps one number per limit,
//! the theoretical arrival time (TAT) of the next call. A call at `now` is allowed when
//! `TAT - now <= tolerance`, and then moves TAT on by one interval; otherwise it is told to wait
//! `TAT - tolerance - now`. One read-modify-write per call, atomic in each backend (a mutex, a
//! `BEGIN IMMEDIATE` transaction, one Lua script on the Redis server's clock).

use crate::confirm::PendingApproval;
use crate::idempotency::StoreError;
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toolwright_core::RateLimit;

/// The answer of [`SharedState::rate_acquire`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    /// The call may run (and was counted).
    Allowed,
    /// Over the limit: wait this long (milliseconds, at least 1) before calling again.
    Limited {
        /// Milliseconds until a call would be allowed.
        retry_after_ms: u64,
    },
}

/// Approvals and rate limits kept in a store (see the module docs). Every operation is atomic.
pub trait SharedState: Send + Sync + std::fmt::Debug + 'static {
    /// Records a call waiting for approval, unless one with the same id exists; it expires after
    /// `ttl`.
    fn approval_put<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Marks the waiting call `id` approved (valid for `ttl` from now); `None` when no call waits
    /// for `id`.
    fn approval_grant<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<PendingApproval>, StoreError>>;

    /// Drops the waiting call `id`; whether there was one.
    fn approval_remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Uses up the approval of `id` when it is approved and belongs to `session`: true at most
    /// once per grant, whichever process asks.
    fn approval_take<'a>(
        &'a self,
        id: &'a str,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Every live waiting (or approved, unused) call.
    fn approvals(&self) -> BoxFuture<'_, Result<Vec<PendingApproval>, StoreError>>;

    /// Counts one call against `limit` under `key`, or says how long to wait.
    fn rate_acquire<'a>(
        &'a self,
        key: &'a str,
        limit: &'a RateLimit,
    ) -> BoxFuture<'a, Result<RateDecision, StoreError>>;

    /// Whether the store answers (readiness probes).
    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>>;
}

/// One GCRA step in microseconds: the new TAT when allowed, or the wait.
pub(crate) fn gcra(tat: u64, now: u64, limit: &RateLimit) -> Result<u64, u64> {
    let tat = tat.max(now);
    let tolerance = limit.tolerance_us();
    if tat - now > tolerance {
        Err(tat - tolerance - now)
    } else {
        Ok(tat + limit.interval_us())
    }
}

/// Microseconds to whole milliseconds, rounded up, at least 1.
pub(crate) fn wait_ms(us: u64) -> u64 {
    us.div_ceil(1000).max(1)
}

/// The in-process state of [`crate::MemoryStore`].
#[derive(Debug, Default)]
pub(crate) struct MemoryShared {
    approvals: Mutex<HashMap<String, (PendingApproval, Instant)>>,
    /// key → TAT in microseconds since `epoch`.
    rates: Mutex<HashMap<String, u64>>,
    epoch: std::sync::OnceLock<Instant>,
}

/// Upper bound on tracked rate-limit keys before idle ones are dropped.
const MAX_RATE_KEYS: usize = 65_536;

impl MemoryShared {
    fn book(&self) -> std::sync::MutexGuard<'_, HashMap<String, (PendingApproval, Instant)>> {
        let mut g = self.approvals.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        g.retain(|_, (_, exp)| *exp > now);
        g
    }

    fn now_us(&self) -> u64 {
        let epoch = *self.epoch.get_or_init(Instant::now);
        u64::try_from(epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }
}

impl SharedState for MemoryShared {
    fn approval_put<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.book()
            .entry(pending.approval_id.clone())
            .or_insert_with(|| (pending.clone(), Instant::now() + ttl));
        Box::pin(async { Ok(()) })
    }

    fn approval_grant<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<PendingApproval>, StoreError>> {
        let got = self.book().get_mut(id).map(|(p, exp)| {
            p.approved = true;
            *exp = Instant::now() + ttl;
            p.clone()
        });
        Box::pin(async move { Ok(got) })
    }

    fn approval_remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let had = self.book().remove(id).is_some();
        Box::pin(async move { Ok(had) })
    }

    fn approval_take<'a>(
        &'a self,
        id: &'a str,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut g = self.book();
        let ok = g
            .get(id)
            .is_some_and(|(p, _)| p.approved && p.session_id.as_deref() == session);
        if ok {
            g.remove(id);
        }
        Box::pin(async move { Ok(ok) })
    }

    fn approvals(&self) -> BoxFuture<'_, Result<Vec<PendingApproval>, StoreError>> {
        let mut v: Vec<_> = self.book().values().map(|(p, _)| p.clone()).collect();
        v.sort_by(|a, b| a.approval_id.cmp(&b.approval_id));
        Box::pin(async move { Ok(v) })
    }

    fn rate_acquire<'a>(
        &'a self,
        key: &'a str,
        limit: &'a RateLimit,
    ) -> BoxFuture<'a, Result<RateDecision, StoreError>> {
        let now = self.now_us();
        let mut g = self.rates.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() >= MAX_RATE_KEYS && !g.contains_key(key) {
            // A key whose TAT is past behaves exactly like a missing one.
            g.retain(|_, tat| *tat > now);
        }
        let tat = g.get(key).copied().unwrap_or(0);
        let decision = match gcra(tat, now, limit) {
            Ok(next) => {
                g.insert(key.to_string(), next);
                RateDecision::Allowed
            }
            Err(wait) => RateDecision::Limited {
                retry_after_ms: wait_ms(wait),
            },
        };
        Box::pin(async move { Ok(decision) })
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcra_allows_the_burst_then_one_per_interval() {
        let limit = RateLimit {
            calls: 10,
            period_ms: 1000,
            burst: Some(3),
            per_caller: false,
        };
        let (mut tat, now) = (0, 1_000_000);
        for _ in 0..3 {
            tat = gcra(tat, now, &limit).unwrap();
        }
        // The fourth call at the same instant waits one interval (100 ms).
        assert_eq!(gcra(tat, now, &limit), Err(100_000));
        assert!(gcra(tat, now + 100_000, &limit).is_ok());
    }

    #[tokio::test]
    async fn memory_rate_limit_counts_per_key() {
        let s = MemoryShared::default();
        let limit = RateLimit {
            calls: 2,
            period_ms: 60_000,
            burst: Some(2),
            per_caller: false,
        };
        for _ in 0..2 {
            assert_eq!(
                s.rate_acquire("a", &limit).await.unwrap(),
                RateDecision::Allowed
            );
        }
        match s.rate_acquire("a", &limit).await.unwrap() {
            RateDecision::Limited { retry_after_ms } => {
                assert!(
                    (29_000..=30_000).contains(&retry_after_ms),
                    "{retry_after_ms}"
                );
            }
            RateDecision::Allowed => panic!("the third call within the burst of 2 ran"),
        }
        assert_eq!(
            s.rate_acquire("b", &limit).await.unwrap(),
            RateDecision::Allowed
        );
    }
}
