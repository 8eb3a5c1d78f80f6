//! The SQLite store: results survive restarts, and processes sharing the file share the keys
//! (WAL mode; reservations are `BEGIN IMMEDIATE` transactions).

use super::{
    IdempotencyStore, Record, Reservation, StoreError, decode_outcome, encode_outcome, millis,
    now_ms,
};
use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolwright_core::Outcome;

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
