//! Idempotency with Stripe's semantics.
//!
//! A call has an idempotency key when its arguments carry `idempotency_key` (a non-empty string),
//! or when its tool is marked `idempotent`: then the key is derived as
//! `{tool}-{session}-{hash of the canonical arguments}`. For a keyed call:
//!
//! - same key, same arguments, an earlier result stored → that result, `meta.replayed: true`,
//!   and the tool does not run;
//! - same key, different arguments → `IDEMPOTENCY_CONFLICT`;
//! - concurrent duplicates → exactly one execution; the others wait (bounded) for its result.
//!   Within a process they wait on a channel; across processes the store's atomic reservation
//!   (a pending record with a lease) decides, and the others poll it;
//! - results expire after a TTL; transient failures (`TIMEOUT`, `RATE_LIMITED`,
//!   `DEPENDENCY_UNAVAILABLE`, `CANCELLED`, `INTERNAL`) are not stored, so the key can be retried;
//! - the store unreachable → `DEPENDENCY_UNAVAILABLE` and the tool does not run;
//! - a `TIMEOUT` whose work is still running (`meta.still_running`) keeps the key reserved until
//!   its lease ends: duplicates meanwhile answer "still running" instead of running it again.
//!
//! # What a record guarantees when the process dies
//!
//! The reservation is written before the tool runs and the result after it. A process killed
//! between the two (SIGKILL, power loss) leaves a pending record: until its lease ends (four
//! deadlines plus 10 s) every duplicate answers `IDEMPOTENCY_CONFLICT` "still running" and
//! nothing runs. After the lease the key is free and the next duplicate runs the tool again: the
//! store gives at most once while a lease or a result is live, and at least once across a crash
//! (whether the killed call's effect happened is unknown to the store; a tool that must not
//! repeat it has to check the world itself, as `track_article_view` does with its unique key).
//!
//! Backends implement [`IdempotencyStore`]: [`MemoryStore`] (default), `SqliteStore` (feature
//! `sqlite`, on by default; survives restarts) and `RedisStore` (feature `redis`; shared by many
//! processes). [`open_store`] parses
//! `memory`, `sqlite:PATH` and `redis://host:port/db`.

mod memory;
mod metered;
#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "redis")]
mod redis_store;

pub use memory::MemoryStore;
pub use metered::MeteredStore;
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use crate::retry::random_u64;
use crate::service::{BoxService, Layer, Request, Service, explicit_key};
use crate::shared::SharedState;
use crate::timeout::{DEFAULT_TIMEOUT, deadline_for};
use futures::future::BoxFuture;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use toolwright_core::{ErrorCode, Meta, Outcome, SharedStr, ToolError, canonical};

/// What a store holds for a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A call with this key is running (or crashed; the record then expires with its lease).
    Pending {
        /// Fingerprint of the running call's tool and arguments.
        fingerprint: String,
        /// Who reserved it.
        owner: String,
    },
    /// A call with this key finished; its result.
    Completed {
        /// Fingerprint of the call's tool and arguments.
        fingerprint: String,
        /// The stored envelope.
        outcome: Box<Outcome>,
    },
}

impl Record {
    /// The fingerprint of the call that owns the key.
    pub fn fingerprint(&self) -> &str {
        match self {
            Record::Pending { fingerprint, .. } | Record::Completed { fingerprint, .. } => {
                fingerprint
            }
        }
    }
}

/// The answer to [`IdempotencyStore::reserve`].
#[derive(Debug, Clone, PartialEq)]
pub enum Reservation {
    /// The key was free and is now pending for the caller, who must run the call and then
    /// [`IdempotencyStore::complete`] or [`IdempotencyStore::release`] it.
    Acquired,
    /// The key is taken.
    Existing(Record),
}

/// A store could not be reached or answered nonsense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    /// The backend (`memory`, `sqlite`, `redis`).
    pub backend: &'static str,
    /// What went wrong.
    pub message: String,
}

impl StoreError {
    /// An error of `backend`.
    pub fn new(backend: &'static str, message: impl Into<String>) -> Self {
        StoreError {
            backend,
            message: message.into(),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} idempotency store: {}", self.backend, self.message)
    }
}

impl std::error::Error for StoreError {}

/// Where idempotent results live. Every operation is atomic per key. A store also holds what
/// replicas share besides results ([`SharedState`]: approvals, rate limits).
pub trait IdempotencyStore: SharedState + Send + Sync + fmt::Debug + 'static {
    /// The backend's name (`memory`, `sqlite`, `redis`).
    fn backend(&self) -> &'static str;

    /// Atomically takes `key` for `owner` (a pending record that expires after `lease`) unless a
    /// live record exists, in which case that record is returned.
    fn reserve<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        owner: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>>;

    /// Stores the result of the call that reserved `key`; it expires after `ttl`.
    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        outcome: &'a Outcome,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Drops the pending record of `owner` (nothing is stored; the key can be used again).
    fn release<'a>(&'a self, key: &'a str, owner: &'a str)
    -> BoxFuture<'a, Result<(), StoreError>>;

    /// The live record of `key`, if any.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Record>, StoreError>>;
}

/// Opens a store from a URL: `memory`, `sqlite:PATH` (also `sqlite://PATH`), or
/// `redis://host:port/db` (feature `redis`). Redis connects lazily, so an unreachable server
/// shows up per call as `DEPENDENCY_UNAVAILABLE`.
///
/// # Errors
/// An unknown scheme, an empty path, a SQLite file that cannot be opened, or SQLite or Redis
/// without its feature (the error names the feature to build with).
pub fn open_store(url: &str) -> Result<Arc<dyn IdempotencyStore>, StoreError> {
    let url = url.trim();
    if url.is_empty() || url == "memory" || url == "memory:" {
        return Ok(Arc::new(MemoryStore::new()));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        let path = path.strip_prefix("//").unwrap_or(path);
        if path.is_empty() {
            return Err(StoreError::new(
                "sqlite",
                "the URL has no path: use sqlite:PATH",
            ));
        }
        #[cfg(feature = "sqlite")]
        {
            return Ok(Arc::new(SqliteStore::open(path)?));
        }
        #[cfg(not(feature = "sqlite"))]
        {
            return Err(StoreError::new(
                "sqlite",
                missing_feature("SQLite", "sqlite"),
            ));
        }
    }
    if url.starts_with("redis://") || url.starts_with("rediss://") {
        #[cfg(feature = "redis")]
        {
            return Ok(Arc::new(RedisStore::open(url)?));
        }
        #[cfg(not(feature = "redis"))]
        {
            return Err(StoreError::new("redis", missing_feature("Redis", "redis")));
        }
    }
    Err(StoreError::new(
        "store",
        format!("unknown store URL `{url}`: use memory, sqlite:PATH or redis://host:port/db"),
    ))
}

/// What a store URL whose backend was compiled out says: the cargo feature that brings it.
#[cfg(not(all(feature = "sqlite", feature = "redis")))]
fn missing_feature(backend: &str, feature: &str) -> String {
    format!(
        "this build has no {backend} store: build with the cargo feature `{feature}` (the \
         toolwright CLI: `cargo install --path crates/toolwright-cli --features {feature}`), or \
         use --store memory"
    )
}

#[cfg(feature = "sqlite")]
/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(any(feature = "sqlite", feature = "redis"))]
/// `d` in whole milliseconds, at least 1.
pub(crate) fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX).max(1)
}

/// Whether [`key_for`] gives `req` a key (without computing it): the arguments carry an
/// `idempotency_key`, or the tool is `idempotent`.
pub(crate) fn keyed(req: &Request) -> bool {
    req.entry.facts().idempotent || explicit_key(&req.args).is_some()
}

/// The key and fingerprint of a call, if it is keyed (see the module docs).
pub fn key_for(req: &Request) -> Option<(String, String)> {
    let spec = req.entry.spec();
    if let Some(k) = explicit_key(&req.args) {
        let mut rest = Value::clone(&req.args);
        if let Some(m) = rest.as_object_mut() {
            m.remove("idempotency_key");
        }
        return Some((format!("key:{k}"), fingerprint(&spec.name, &rest)));
    }
    if spec.meta.idempotent {
        let fp = fingerprint(&spec.name, &req.args);
        let session = req.session_id.as_deref().unwrap_or("nosession");
        let hash = canonical::hash(&req.args);
        return Some((format!("{}-{session}-{hash}", spec.name), fp));
    }
    None
}

/// The hash of the canonical `{"args": args, "tool": tool}` (keys sorted), without building it.
fn fingerprint(tool: &str, args: &Value) -> String {
    let text = format!(
        "{{\"args\":{},\"tool\":{}}}",
        canonical::canonical_string(args),
        Value::String(tool.to_string())
    );
    canonical::hash_bytes(text.as_bytes())
}

/// Failures worth another try with the same key; they are not stored.
fn storable(out: &Outcome) -> bool {
    !matches!(
        out.error_code(),
        Some(
            ErrorCode::Timeout
                | ErrorCode::RateLimited
                | ErrorCode::DependencyUnavailable
                | ErrorCode::Cancelled
                | ErrorCode::Internal
        )
    )
}

/// Settings of the idempotency policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdempotencyConfig {
    /// How long results are kept.
    pub ttl: Duration,
    /// The longest a duplicate waits for the call that holds its key.
    pub max_wait: Duration,
    /// Deadline of tools without their own (used to size the pending lease).
    pub default_timeout: Duration,
}

impl Default for IdempotencyConfig {
    fn default() -> Self {
        IdempotencyConfig {
            ttl: Duration::from_secs(24 * 3600),
            max_wait: Duration::from_secs(60),
            default_timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// What the call that held a key tells the duplicates that waited for it.
#[derive(Debug, Clone)]
enum Shared {
    /// A result the duplicates replay.
    Replay(Outcome),
    /// An answer that holds for the duplicates as it is (conflict, store down).
    Same(Outcome),
    /// Nothing stored; the duplicates try the key themselves.
    Retry,
}

struct Flight {
    fingerprint: String,
    rx: watch::Receiver<Option<Shared>>,
}

type Flights = Arc<Mutex<HashMap<String, Flight>>>;

/// Removes the in-process flight when the leader finishes or is dropped.
struct FlightGuard {
    flights: Flights,
    key: String,
}

impl Drop for FlightGuard {
    fn drop(&mut self) {
        self.flights
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.key);
    }
}

/// The idempotency policy (see the module docs).
#[derive(Debug, Clone)]
pub struct IdempotencyLayer {
    store: Arc<dyn IdempotencyStore>,
    config: IdempotencyConfig,
}

impl IdempotencyLayer {
    /// A policy over `store`.
    pub fn new(store: Arc<dyn IdempotencyStore>, config: IdempotencyConfig) -> Self {
        IdempotencyLayer { store, config }
    }
}

impl Layer for IdempotencyLayer {
    fn layer(&self, inner: BoxService) -> BoxService {
        Arc::new(Idempotency {
            inner,
            store: self.store.clone(),
            config: self.config,
            flights: Arc::new(Mutex::new(HashMap::new())),
        })
    }
}

struct Idempotency {
    inner: BoxService,
    store: Arc<dyn IdempotencyStore>,
    config: IdempotencyConfig,
    flights: Flights,
}

enum Role {
    Leader(watch::Sender<Option<Shared>>, FlightGuard),
    Follower(String, watch::Receiver<Option<Shared>>),
}

impl Service for Idempotency {
    fn call(&self, mut req: Request) -> BoxFuture<'static, Outcome> {
        let Some((key, fp)) = key_for(&req) else {
            return self.inner.call(req);
        };
        req.idempotency_key = Some(key.clone());
        let inner = self.inner.clone();
        let store = self.store.clone();
        let config = self.config;
        let flights = self.flights.clone();
        Box::pin(async move {
            let started = Instant::now();
            // A few rounds: a duplicate whose leader stored nothing takes the key itself.
            for _ in 0..4 {
                let role = {
                    let mut map = flights.lock().unwrap_or_else(|e| e.into_inner());
                    match map.get(&key) {
                        Some(f) => Role::Follower(f.fingerprint.clone(), f.rx.clone()),
                        None => {
                            let (tx, rx) = watch::channel(None);
                            map.insert(
                                key.clone(),
                                Flight {
                                    fingerprint: fp.clone(),
                                    rx,
                                },
                            );
                            Role::Leader(
                                tx,
                                FlightGuard {
                                    flights: flights.clone(),
                                    key: key.clone(),
                                },
                            )
                        }
                    }
                };
                match role {
                    Role::Follower(other_fp, mut rx) => {
                        if other_fp != fp {
                            return conflict(&key);
                        }
                        let left = config.max_wait.saturating_sub(started.elapsed());
                        let waited = tokio::time::timeout(left, rx.wait_for(Option::is_some)).await;
                        match waited {
                            Err(_) => return in_progress(&key),
                            Ok(Err(_)) => continue, // the leader was dropped: try again
                            Ok(Ok(v)) => match v.clone() {
                                Some(Shared::Replay(o)) => return replay(o),
                                Some(Shared::Same(o)) => return o,
                                Some(Shared::Retry) | None => continue,
                            },
                        }
                    }
                    Role::Leader(tx, guard) => {
                        let (out, shared) =
                            lead(&inner, &store, config, req.clone(), &key, &fp, started).await;
                        let _ = tx.send(Some(shared));
                        drop(guard);
                        return out;
                    }
                }
            }
            in_progress(&key)
        })
    }
}

/// The leader's work: reserve the key in the store, then run, replay or refuse.
async fn lead(
    inner: &BoxService,
    store: &Arc<dyn IdempotencyStore>,
    config: IdempotencyConfig,
    req: Request,
    key: &str,
    fp: &str,
    started: Instant,
) -> (Outcome, Shared) {
    let owner = format!("{:016x}", random_u64());
    let deadline = deadline_for(req.entry.spec(), config.default_timeout);
    // The pending record must outlive the call with its retries, or a duplicate could run it.
    let lease = deadline.saturating_mul(4) + Duration::from_secs(10);
    let mut poll = Duration::from_millis(5);
    loop {
        let res = match store.reserve(key, fp, &owner, lease).await {
            Ok(r) => r,
            Err(e) => {
                let out = store_down(&e);
                return (out.clone(), Shared::Same(out));
            }
        };
        match res {
            Reservation::Acquired => {
                let mut held = ReservationGuard {
                    store: store.clone(),
                    key: key.to_string(),
                    owner: owner.clone(),
                    armed: true,
                };
                let out = inner.call(req).await;
                if out.meta.still_running {
                    // The work may still take effect: the key stays reserved until its lease
                    // ends, so no duplicate runs it meanwhile.
                    held.armed = false;
                    return (out, Shared::Same(in_progress(key)));
                }
                if storable(&out) {
                    let stored = stored_form(&out);
                    match store.complete(key, fp, &stored, config.ttl).await {
                        Ok(()) => {
                            held.armed = false;
                            return (out, Shared::Replay(stored));
                        }
                        Err(e) => {
                            tracing::warn!(key, error = %e, "could not store an idempotent result");
                        }
                    }
                }
                held.armed = false;
                if let Err(e) = store.release(key, &owner).await {
                    tracing::warn!(key, error = %e, "could not release an idempotency key");
                }
                return (out, Shared::Retry);
            }
            Reservation::Existing(Record::Completed {
                fingerprint,
                outcome,
            }) => {
                if fingerprint != fp {
                    let out = conflict(key);
                    return (out.clone(), Shared::Same(out));
                }
                return (replay((*outcome).clone()), Shared::Replay(*outcome));
            }
            Reservation::Existing(Record::Pending { fingerprint, .. }) => {
                if fingerprint != fp {
                    let out = conflict(key);
                    return (out.clone(), Shared::Same(out));
                }
                // Another process runs it: wait for its result, or for the key to free up.
                if started.elapsed() >= config.max_wait {
                    let out = in_progress(key);
                    return (out.clone(), Shared::Same(out));
                }
                if req.cancel.is_cancelled() {
                    let out = Outcome::from_error(ToolError::cancelled("The call was cancelled."));
                    return (out, Shared::Retry);
                }
                tokio::time::sleep(poll).await;
                poll = (poll * 2).min(Duration::from_millis(100));
            }
        }
    }
}

/// Releases a reservation whose call was dropped before it finished (a parent tool timed out,
/// the host dropped the future), so duplicates need not wait for the lease to run out.
struct ReservationGuard {
    store: Arc<dyn IdempotencyStore>,
    key: String,
    owner: String,
    armed: bool,
}

impl Drop for ReservationGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let store = self.store.clone();
            let key = std::mem::take(&mut self.key);
            let owner = std::mem::take(&mut self.owner);
            handle.spawn(async move {
                if let Err(e) = store.release(&key, &owner).await {
                    tracing::warn!(key, error = %e, "could not release a dropped call's key");
                }
            });
        }
    }
}

/// The form kept in the store: the envelope without this call's meta.
fn stored_form(out: &Outcome) -> Outcome {
    let mut o = out.clone();
    o.meta = Meta {
        truncated: o.meta.truncated.take(),
        fallback_from: o.meta.fallback_from.take(),
        coerced: std::mem::take(&mut o.meta.coerced),
        ..Meta::default()
    };
    o
}

fn replay(mut out: Outcome) -> Outcome {
    out.meta.replayed = true;
    if out.instruction.is_none() {
        out.instruction = Some(
            "This is the stored result of the earlier call with this idempotency key, as it was \
             then; it does not check the world now. Use a new key to act again."
                .to_string(),
        );
    }
    let note = "Replayed: an earlier call with the same idempotency key already did this, so \
                the tool did not run again; this is its stored result.";
    out.message = if out.message.is_empty() {
        SharedStr::from_static(note)
    } else {
        format!("{} {note}", out.message).into()
    };
    out
}

fn conflict(key: &str) -> Outcome {
    let shown = key.strip_prefix("key:").unwrap_or(key);
    Outcome::from_error(ToolError::idempotency_conflict(format!(
        "The idempotency key `{shown}` was already used with different arguments."
    )))
}

fn in_progress(key: &str) -> Outcome {
    let shown = key.strip_prefix("key:").unwrap_or(key);
    Outcome::from_error(
        ToolError::idempotency_conflict(format!(
            "A call with the idempotency key `{shown}` is still running."
        ))
        .with_suggestion("Wait a moment, then repeat the same call to get its result.")
        .with_retryable(true),
    )
}

fn store_down(e: &StoreError) -> Outcome {
    tracing::warn!(error = %e, "idempotency store unavailable");
    Outcome::from_error(
        ToolError::dependency_unavailable(
            "The idempotency store is unavailable, so this call was not run (running it \
             could repeat its effect).",
            "Do not retry blindly; tell the user the service is unavailable and try later.",
        )
        .with_detail(e.to_string()),
    )
}

#[cfg(any(feature = "sqlite", feature = "redis"))]
/// Decodes a stored envelope.
pub(crate) fn decode_outcome(backend: &'static str, s: &str) -> Result<Outcome, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::new(backend, format!("corrupt record: {e}")))
}

#[cfg(any(feature = "sqlite", feature = "redis"))]
/// Encodes an envelope for storage.
pub(crate) fn encode_outcome(backend: &'static str, o: &Outcome) -> Result<String, StoreError> {
    serde_json::to_string(o).map_err(|e| StoreError::new(backend, format!("encode: {e}")))
}

#[cfg(test)]
mod tests;
