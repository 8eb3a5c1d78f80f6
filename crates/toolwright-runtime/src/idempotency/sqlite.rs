//! The SQLite store: results survive restarts, and processes sharing the file share the keys
//! (WAL mode; reservations are `BEGIN IMMEDIATE` transactions).

use super::{
    IdempotencyStore, Record, Reservation, StoreError, decode_outcome, encode_outcome, millis,
    now_ms,
};
use crate::confirm::PendingApproval;
use crate::shared::{RateDecision, SharedState, gcra, wait_ms};
use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolwright_core::{Outcome, RateLimit};

const B: &str = "sqlite";

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::new(B, e.to_string())
}

/// Records in a table `toolwright_idempotency` of a SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    ///
    /// # Errors
    /// The file cannot be created or opened, or the table cannot be made.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                err(format!(
                    "cannot create the directory {}: {e}",
                    dir.display()
                ))
            })?;
        }
        let conn = Connection::open(&path)
            .map_err(|e| err(format!("cannot open {}: {e}", path.display())))?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(err)?;
        // WAL lets readers and one writer work at once; ignore filesystems that refuse it.
        let _ = conn.pragma_update(None, "journal_mode", "WAL");
        // In WAL mode NORMAL never corrupts the file; a power cut may lose the last results,
        // which then run again: an fsync per call is not worth 40x the latency here.
        let _ = conn.pragma_update(None, "synchronous", "NORMAL");
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS toolwright_idempotency (
                 key TEXT PRIMARY KEY,
                 state TEXT NOT NULL,
                 fingerprint TEXT NOT NULL,
                 owner TEXT,
                 outcome TEXT,
                 expires_at INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS toolwright_approvals (
                 id TEXT PRIMARY KEY,
                 approved INTEGER NOT NULL,
                 session TEXT,
                 pending TEXT NOT NULL,
                 expires_at INTEGER NOT NULL
             );
             CREATE TABLE IF NOT EXISTS toolwright_rates (
                 key TEXT PRIMARY KEY,
                 tat_us INTEGER NOT NULL
             );",
        )
        .map_err(err)?;
        Ok(SqliteStore {
            conn: Arc::new(Mutex::new(conn)),
            path,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the connection off the async threads.
    fn with_conn<T, F>(&self, f: F) -> BoxFuture<'static, Result<T, StoreError>>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let conn = self.conn.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut c = conn.lock().unwrap_or_else(|e| e.into_inner());
                f(&mut c)
            })
            .await
            .map_err(|e| err(format!("worker failed: {e}")))?
        })
    }
}

fn read(c: &Connection, key: &str, now: i64) -> Result<Option<Record>, StoreError> {
    let row: Option<(String, String, Option<String>, Option<String>)> = c
        .query_row(
            "SELECT state, fingerprint, owner, outcome FROM toolwright_idempotency
             WHERE key = ?1 AND expires_at > ?2",
            params![key, now],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()
        .map_err(err)?;
    row.map(
        |(state, fingerprint, owner, outcome)| match state.as_str() {
            "done" => Ok(Record::Completed {
                fingerprint,
                outcome: Box::new(decode_outcome(B, outcome.as_deref().unwrap_or(""))?),
            }),
            _ => Ok(Record::Pending {
                fingerprint,
                owner: owner.unwrap_or_default(),
            }),
        },
    )
    .transpose()
}

impl IdempotencyStore for SqliteStore {
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
        let (key, fp, owner) = (key.to_string(), fingerprint.to_string(), owner.to_string());
        self.with_conn(move |c| {
            let now = now_ms();
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(err)?;
            tx.execute(
                "DELETE FROM toolwright_idempotency WHERE key = ?1 AND expires_at <= ?2",
                params![key, now],
            )
            .map_err(err)?;
            let inserted = tx
                .execute(
                    "INSERT OR IGNORE INTO toolwright_idempotency
                     (key, state, fingerprint, owner, outcome, expires_at)
                     VALUES (?1, 'pending', ?2, ?3, NULL, ?4)",
                    params![key, fp, owner, now.saturating_add(millis(lease))],
                )
                .map_err(err)?;
            let res = if inserted == 1 {
                Reservation::Acquired
            } else {
                match read(&tx, &key, now)? {
                    Some(r) => Reservation::Existing(r),
                    None => return Err(err("a record vanished during a reservation")),
                }
            };
            tx.commit().map_err(err)?;
            Ok(res)
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        fingerprint: &'a str,
        outcome: &'a Outcome,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let encoded = encode_outcome(B, outcome);
        let (key, fp) = (key.to_string(), fingerprint.to_string());
        self.with_conn(move |c| {
            let encoded = encoded?;
            c.execute(
                "INSERT OR REPLACE INTO toolwright_idempotency
                 (key, state, fingerprint, owner, outcome, expires_at)
                 VALUES (?1, 'done', ?2, NULL, ?3, ?4)",
                params![key, fp, encoded, now_ms().saturating_add(millis(ttl))],
            )
            .map_err(err)?;
            Ok(())
        })
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let (key, owner) = (key.to_string(), owner.to_string());
        self.with_conn(move |c| {
            c.execute(
                "DELETE FROM toolwright_idempotency
                 WHERE key = ?1 AND state = 'pending' AND owner = ?2",
                params![key, owner],
            )
            .map_err(err)?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Record>, StoreError>> {
        let key = key.to_string();
        self.with_conn(move |c| read(c, &key, now_ms()))
    }
}

/// Microseconds since the Unix epoch (the clock every process sharing the file agrees on).
fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

fn decode_pending(json: &str) -> Result<PendingApproval, StoreError> {
    serde_json::from_str(json).map_err(|e| err(format!("corrupt approval: {e}")))
}

impl SharedState for SqliteStore {
    fn approval_put<'a>(
        &'a self,
        pending: &'a PendingApproval,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let json = serde_json::to_string(pending).map_err(err);
        let (id, session) = (pending.approval_id.clone(), pending.session_id.clone());
        self.with_conn(move |c| {
            let now = now_ms();
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(err)?;
            tx.execute(
                "DELETE FROM toolwright_approvals WHERE expires_at <= ?1",
                params![now],
            )
            .map_err(err)?;
            tx.execute(
                "INSERT OR IGNORE INTO toolwright_approvals (id, approved, session, pending, expires_at)
                 VALUES (?1, 0, ?2, ?3, ?4)",
                params![id, session, json?, now.saturating_add(millis(ttl))],
            )
            .map_err(err)?;
            tx.commit().map_err(err)
        })
    }

    fn approval_grant<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<PendingApproval>, StoreError>> {
        let id = id.to_string();
        self.with_conn(move |c| {
            let now = now_ms();
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(err)?;
            let row: Option<String> = tx
                .query_row(
                    "SELECT pending FROM toolwright_approvals WHERE id = ?1 AND expires_at > ?2",
                    params![id, now],
                    |r| r.get(0),
                )
                .optional()
                .map_err(err)?;
            let Some(json) = row else { return Ok(None) };
            let mut p = decode_pending(&json)?;
            p.approved = true;
            let json = serde_json::to_string(&p).map_err(err)?;
            tx.execute(
                "UPDATE toolwright_approvals SET approved = 1, pending = ?2, expires_at = ?3
                 WHERE id = ?1",
                params![id, json, now.saturating_add(millis(ttl))],
            )
            .map_err(err)?;
            tx.commit().map_err(err)?;
            Ok(Some(p))
        })
    }

    fn approval_remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let id = id.to_string();
        self.with_conn(move |c| {
            let n = c
                .execute(
                    "DELETE FROM toolwright_approvals WHERE id = ?1 AND expires_at > ?2",
                    params![id, now_ms()],
                )
                .map_err(err)?;
            Ok(n > 0)
        })
    }

    fn approval_take<'a>(
        &'a self,
        id: &'a str,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let (id, session) = (id.to_string(), session.map(str::to_string));
        self.with_conn(move |c| {
            // One statement: the row goes to exactly one taker.
            let n = c
                .execute(
                    "DELETE FROM toolwright_approvals
                     WHERE id = ?1 AND approved = 1 AND session IS ?2 AND expires_at > ?3",
                    params![id, session, now_ms()],
                )
                .map_err(err)?;
            Ok(n > 0)
        })
    }

    fn approvals(&self) -> BoxFuture<'_, Result<Vec<PendingApproval>, StoreError>> {
        self.with_conn(move |c| {
            let mut stmt = c
                .prepare(
                    "SELECT pending FROM toolwright_approvals WHERE expires_at > ?1 ORDER BY id",
                )
                .map_err(err)?;
            let rows = stmt
                .query_map(params![now_ms()], |r| r.get::<_, String>(0))
                .map_err(err)?;
            rows.map(|r| decode_pending(&r.map_err(err)?)).collect()
        })
    }

    fn rate_acquire<'a>(
        &'a self,
        key: &'a str,
        limit: &'a RateLimit,
    ) -> BoxFuture<'a, Result<RateDecision, StoreError>> {
        let (key, limit) = (key.to_string(), *limit);
        self.with_conn(move |c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(err)?;
            let tat: Option<i64> = tx
                .query_row(
                    "SELECT tat_us FROM toolwright_rates WHERE key = ?1",
                    params![key],
                    |r| r.get(0),
                )
                .optional()
                .map_err(err)?;
            let tat = tat.and_then(|t| u64::try_from(t).ok()).unwrap_or(0);
            let decision = match gcra(tat, now_us(), &limit) {
                Ok(next) => {
                    tx.execute(
                        "INSERT OR REPLACE INTO toolwright_rates (key, tat_us) VALUES (?1, ?2)",
                        params![key, i64::try_from(next).unwrap_or(i64::MAX)],
                    )
                    .map_err(err)?;
                    RateDecision::Allowed
                }
                Err(wait) => RateDecision::Limited {
                    retry_after_ms: wait_ms(wait),
                },
            };
            tx.commit().map_err(err)?;
            Ok(decision)
        })
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        self.with_conn(|c| c.query_row("SELECT 1", [], |_| Ok(())).map_err(err))
    }
}
