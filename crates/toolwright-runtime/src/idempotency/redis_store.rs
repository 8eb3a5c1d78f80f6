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
use futures::future::BoxFuture;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client};
use std::time::Duration;
use tokio::sync::Mutex;
use toolwright_core::Outcome;

const B: &str = "redis";
const PREFIX: &str = "toolwright:idem:";
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
