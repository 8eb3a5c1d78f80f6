//! The in-memory store: the default, for one process.

use super::{IdempotencyStore, Record, Reservation, StoreError};
use crate::confirm::PendingApproval;
use crate::shared::{MemoryShared, RateDecision, SharedState};
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toolwright_core::Outcome;
use toolwright_core::RateLimit;

/// Keeps records in a map; expired ones are dropped as the map is used.
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: Mutex<HashMap<String, (Record, Instant)>>,
    shared: MemoryShared,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    /// Live records.
    pub fn len(&self) -> usize {
        let now = Instant::now();
        self.lock().values().filter(|(_, exp)| *exp > now).count()
    }

    /// Whether there are no live records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Record, Instant)>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn live(map: &mut HashMap<String, (Record, Instant)>, key: &str) -> Option<Record> {
        match map.get(key) {
            Some((r, exp)) if *exp > Instant::now() => Some(r.clone()),
            Some(_) => {
                map.remove(key);
                None
            }
            None => None,
        }
    }

    fn sweep(map: &mut HashMap<String, (Record, Instant)>) {
        // Amortized cleanup: only when the map has grown.
        if map.len() > 1024 && map.len().is_power_of_two() {
            let now = Instant::now();
            map.retain(|_, (_, exp)| *exp > now);
        }
    }
}

impl IdempotencyStore for MemoryStore {
    fn backend(&self) -> &'static str {
        "memory"
    }

    fn reserve<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        owner: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        let mut map = self.lock();
        let res = match Self::live(&mut map, key) {
            Some(r) => Reservation::Existing(r),
            None => {
                Self::sweep(&mut map);
                map.insert(
                    key.to_string(),
                    (
                        Record::Pending {
                            fingerprint: fingerprint.to_string(),
                            owner: owner.to_string(),
                        },
                        Instant::now() + lease,
                    ),
                );
                Reservation::Acquired
            }
        };
        Box::pin(async move { Ok(res) })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        outcome: &'a Outcome,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.lock().insert(
            key.to_string(),
            (
                Record::Completed {
                    fingerprint: fingerprint.to_string(),
                    outcome: Box::new(outcome.clone()),
                },
                Instant::now() + ttl,
            ),
        );
        Box::pin(async { Ok(()) })
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut map = self.lock();
        let mine =
            matches!(map.get(key), Some((Record::Pending { owner: o, .. }, _)) if o == owner);
        if mine {
            map.remove(key);
        }
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Record>, StoreError>> {
        let r = Self::live(&mut self.lock(), key);
        Box::pin(async move { Ok(r) })
    }
}

impl SharedState for MemoryStore {
    fn approval_put<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.shared.approval_put(pending, ttl)
    }

    fn approval_grant<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<PendingApproval>, StoreError>> {
        self.shared.approval_grant(id, ttl)
    }

    fn approval_remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.shared.approval_remove(id)
    }

    fn approval_take<'a>(
        &'a self,
        id: &'a str,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.shared.approval_take(id, session)
    }

    fn approvals(&self) -> BoxFuture<'_, Result<Vec<PendingApproval>, StoreError>> {
        self.shared.approvals()
    }

    fn rate_acquire<'a>(
        &'a self,
        key: &'a str,
        limit: &'a RateLimit,
    ) -> BoxFuture<'a, Result<RateDecision, StoreError>> {
        self.shared.rate_acquire(key, limit)
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        self.shared.ping()
    }
}
