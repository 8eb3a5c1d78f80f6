//! The Redis store: shared by every process that uses the same server and database.
//!
//! A reservation is a Lua script that returns the key's value or, when there is none, sets
//! `"P|owner|fingerprint"` with the lease as expiry (`SET NX PX` and the `GET` of a taken key in
//! one atomic round trip); a result replaces it with
//! `SET key "D|fingerprint|envelope" PX ttl`; a release deletes the key only if it still holds
//! the caller's pending value (a Lua compare-and-delete), so a late release cannot drop
//! somebody else's reservation. The connection is made lazily and remade after an error, so a
//! server that goes away answers `DEPENDENCY_UNAVAILABLE` per call and a server that comes back
//! is used again.

use super::{
    IdempotencyStore, Record, Reservation, StoreError, decode_outcome, encode_outcome, millis,
};
use crate::confirm::PendingApproval;
use crate::shared::{RateDecision, SharedState};
use futures::future::BoxFuture;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client};
use std::time::Duration;
use tokio::sync::Mutex;
use toolwright_core::{Outcome, RateLimit};

const B: &str = "redis";
const PREFIX: &str = "toolwright:idem:";
const APPROVALS: &str = "toolwright:appr:";
const RATES: &str = "toolwright:rate:";
/// Marks the approval KEYS[1] approved and renews its expiry (ARGV[1] ms); returns the new
/// value, or nil when there is none.
const GRANT: &str = "local v = redis.call('GET', KEYS[1]) if not v then return false end \
    local p = cjson.decode(v) p['approved'] = true local n = cjson.encode(p) \
    redis.call('SET', KEYS[1], n, 'PX', ARGV[1]) return n";
/// Deletes the approval KEYS[1] when it is approved and its session is ARGV[1] (ARGV[2] = '1')
/// or absent (ARGV[2] = '0'); 1 when it did.
const TAKE: &str = "local v = redis.call('GET', KEYS[1]) if not v then return 0 end \
    local p = cjson.decode(v) if p['approved'] ~= true then return 0 end \
    local s = p['session_id'] if s == cjson.null then s = nil end \
    if ARGV[2] == '1' then if s ~= ARGV[1] then return 0 end elseif s ~= nil then return 0 end \
    return redis.call('DEL', KEYS[1])";
/// GCRA on the server's clock (one clock for every replica): ARGV = interval, tolerance (µs).
/// Returns -1 when allowed (and moves the TAT on), else the wait in µs.
const RATE: &str = "local t = redis.call('TIME') local now = t[1] * 1000000 + t[2] \
    local tat = tonumber(redis.call('GET', KEYS[1]) or '0') if tat < now then tat = now end \
    local tol = tonumber(ARGV[2]) if tat - now > tol then return tat - tol - now end \
    local nxt = tat + tonumber(ARGV[1]) \
    redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.floor((nxt - now) / 1000) + 1000) \
    return -1";
/// Returns the existing value, or sets the pending one (with its lease) and returns nil: one
/// round trip, atomic.
const RESERVE: &str = "local v = redis.call('GET', KEYS[1]) if v then return v end \
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return false";
/// Deletes the key only while it holds a pending value starting with ARGV[1] (`P|owner|`).
const RELEASE: &str = "local v = redis.call('GET', KEYS[1]) \
    if v and string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then \
    return redis.call('DEL', KEYS[1]) end return 0";

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::new(B, e.to_string())
}

/// Records in Redis under `toolwright:idem:{key}`.
pub struct RedisStore {
    client: Client,
    url: String,
    timeout: Duration,
    conn: Mutex<Option<MultiplexedConnection>>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: show only where it points.
        let info = self.client.get_connection_info();
        f.debug_struct("RedisStore")
            .field("addr", &info.addr().to_string())
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store for `url` (`redis://host:port/db`). Does not connect yet.
    ///
    /// # Errors
    /// The URL does not parse.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        let client = Client::open(url).map_err(|e| err(format!("bad URL: {e}")))?;
        Ok(RedisStore {
            client,
            url: url.to_string(),
            timeout: Duration::from_secs(2),
            conn: Mutex::new(None),
        })
    }

    /// Sets the connect and response timeout (default 2 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The URL the store was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    async fn connection(&self) -> Result<MultiplexedConnection, StoreError> {
        let mut slot = self.conn.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let cfg = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout));
        let c = self
            .client
            .get_multiplexed_async_connection_with_config(&cfg)
            .await
            .map_err(|e| err(format!("cannot connect: {e}")))?;
        *slot = Some(c.clone());
        Ok(c)
    }

    /// Runs one command; on a failure the connection is dropped so the next call reconnects.
    async fn query<T: redis::FromRedisValue>(&self, cmd: redis::Cmd) -> Result<T, StoreError> {
        let mut c = self.connection().await?;
        match cmd.query_async::<T>(&mut c).await {
            Ok(v) => Ok(v),
            Err(e) => {
                if e.is_io_error()
                    || e.is_connection_dropped()
                    || e.is_timeout()
                    || e.is_unrecoverable_error()
                {
                    *self.conn.lock().await = None;
                }
                Err(err(e))
            }
        }
    }
}

fn decode(raw: &str) -> Result<Record, StoreError> {
    let mut parts = raw.splitn(3, '|');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("P"), Some(owner), Some(fp)) => Ok(Record::Pending {
            fingerprint: fp.to_string(),
            owner: owner.to_string(),
        }),
        (Some("D"), Some(fp), Some(json)) => Ok(Record::Completed {
            fingerprint: fp.to_string(),
            outcome: Box::new(decode_outcome(B, json)?),
        }),
        _ => Err(err("corrupt record")),
    }
}

impl IdempotencyStore for RedisStore {
    fn backend(&self) -> &'static str {
        B
    }

    fn reserve<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        owner: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        Box::pin(async move {
            let k = format!("{PREFIX}{key}");
            let pending = format!("P|{owner}|{fingerprint}");
            let mut eval = redis::cmd("EVAL");
            eval.arg(RESERVE)
                .arg(1)
                .arg(&k)
                .arg(&pending)
                .arg(millis(lease));
            let existing: Option<String> = self.query(eval).await?;
            match existing {
                None => Ok(Reservation::Acquired),
                Some(raw) => Ok(Reservation::Existing(decode(&raw)?)),
            }
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        outcome: &'a Outcome,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = encode_outcome(B, outcome)?;
            let mut set = redis::cmd("SET");
            set.arg(format!("{PREFIX}{key}"))
                .arg(format!("D|{fingerprint}|{json}"))
                .arg("PX")
                .arg(millis(ttl));
            let _: Option<String> = self.query(set).await?;
            Ok(())
        })
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut eval = redis::cmd("EVAL");
            eval.arg(RELEASE)
                .arg(1)
                .arg(format!("{PREFIX}{key}"))
                .arg(format!("P|{owner}|"));
            let _: i64 = self.query(eval).await?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Record>, StoreError>> {
        Box::pin(async move {
            let mut get = redis::cmd("GET");
            get.arg(format!("{PREFIX}{key}"));
            let raw: Option<String> = self.query(get).await?;
            raw.map(|r| decode(&r)).transpose()
        })
    }
}

fn decode_pending(raw: &str) -> Result<PendingApproval, StoreError> {
    serde_json::from_str(raw).map_err(|e| err(format!("corrupt approval: {e}")))
}

fn script(src: &str, key: String) -> redis::Cmd {
    let mut eval = redis::cmd("EVAL");
    eval.arg(src).arg(1).arg(key);
    eval
}

impl SharedState for RedisStore {
    fn approval_put<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(pending).map_err(err)?;
            let mut set = redis::cmd("SET");
            set.arg(format!("{APPROVALS}{}", pending.approval_id))
                .arg(json)
                .arg("NX")
                .arg("PX")
                .arg(millis(ttl));
            let _: Option<String> = self.query(set).await?;
            Ok(())
        })
    }

    fn approval_grant<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<PendingApproval>, StoreError>> {
        Box::pin(async move {
            let mut eval = script(GRANT, format!("{APPROVALS}{id}"));
            eval.arg(millis(ttl));
            let raw: Option<String> = self.query(eval).await?;
            raw.map(|r| decode_pending(&r)).transpose()
        })
    }

    fn approval_remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut del = redis::cmd("DEL");
            del.arg(format!("{APPROVALS}{id}"));
            let n: i64 = self.query(del).await?;
            Ok(n > 0)
        })
    }

    fn approval_take<'a>(
        &'a self,
        id: &'a str,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut eval = script(TAKE, format!("{APPROVALS}{id}"));
            eval.arg(session.unwrap_or(""))
                .arg(if session.is_some() { "1" } else { "0" });
            let n: i64 = self.query(eval).await?;
            Ok(n > 0)
        })
    }

    fn approvals(&self) -> BoxFuture<'_, Result<Vec<PendingApproval>, StoreError>> {
        Box::pin(async move {
            let mut keys: Vec<String> = Vec::new();
            let mut cursor: u64 = 0;
            loop {
                let mut scan = redis::cmd("SCAN");
                scan.arg(cursor)
                    .arg("MATCH")
                    .arg(format!("{APPROVALS}*"))
                    .arg("COUNT")
                    .arg(1000);
                let (next, batch): (u64, Vec<String>) = self.query(scan).await?;
                keys.extend(batch);
                if next == 0 {
                    break;
                }
                cursor = next;
            }
            let mut out = Vec::with_capacity(keys.len());
            for k in keys {
                let mut get = redis::cmd("GET");
                get.arg(k);
                // Expired between the scan and the read: skip it.
                if let Some(raw) = self.query::<Option<String>>(get).await? {
                    out.push(decode_pending(&raw)?);
                }
            }
            out.sort_by(|a, b| a.approval_id.cmp(&b.approval_id));
            Ok(out)
        })
    }

    fn rate_acquire<'a>(
        &'a self,
        key: &'a str,
        limit: &'a RateLimit,
    ) -> BoxFuture<'a, Result<RateDecision, StoreError>> {
        Box::pin(async move {
            let mut eval = script(RATE, format!("{RATES}{key}"));
            eval.arg(limit.interval_us()).arg(limit.tolerance_us());
            let wait: i64 = self.query(eval).await?;
            Ok(match u64::try_from(wait) {
                Ok(us) => RateDecision::Limited {
                    retry_after_ms: crate::shared::wait_ms(us),
                },
                Err(_) => RateDecision::Allowed,
            })
        })
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let _: String = self.query(redis::cmd("PING")).await?;
            Ok(())
        })
    }
}
