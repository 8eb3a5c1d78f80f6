//! Idempotency on each of the three stores: exactly-once under 64 concurrent duplicates (in one
//! runtime, and across runtimes that share only the store), replay after a restart, and a store
//! that goes away.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::track_registry;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use toolwright_core::{ErrorCode, Registry, Status, ToolCall};
use toolwright_runtime::{CallOptions, IdempotencyStore, MemoryStore, Runtime, SqliteStore};

fn runtime(reg: &Arc<Registry>, store: Arc<dyn IdempotencyStore>) -> Runtime {
    Runtime::builder(reg.clone()).store(store).build()
}

fn call(i: usize, id: i64, key: &str) -> ToolCall {
    ToolCall::new(
        format!("c{i}"),
        "track",
        json!({"id": id, "idempotency_key": key}),
    )
}

/// 64 concurrent calls with one key through one runtime.
async fn one_runtime_64(store: Arc<dyn IdempotencyStore>) {
    let (reg, runs) = track_registry(Duration::from_millis(50));
    let rt = runtime(&reg, store);
    let opts = CallOptions::default();
    let futs = (0..64).map(|i| rt.invoke(call(i, 7, "k-one"), &opts));
    let outs = futures::future::join_all(futs).await;
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the body ran more than once"
    );
    for o in &outs {
        assert_eq!(o.status(), Status::Success, "{o:?}");
        assert_eq!(o.data.as_ref().unwrap()["run"], 1);
    }
    assert_eq!(outs.iter().filter(|o| o.meta.replayed).count(), 63);
}

/// 8 runtimes x 8 calls, each runtime with its own store handle: only the store coordinates.
async fn many_runtimes_64(stores: Vec<Arc<dyn IdempotencyStore>>) {
    let (reg, runs) = track_registry(Duration::from_millis(50));
    let rts: Vec<Runtime> = stores.into_iter().map(|s| runtime(&reg, s)).collect();
    let opts = CallOptions::default();
    let futs = (0..64).map(|i| rts[i % rts.len()].invoke(call(i, 7, "k-many"), &opts));
    let outs = futures::future::join_all(futs).await;
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the body ran more than once"
    );
    assert!(
        outs.iter().all(|o| o.status() == Status::Success),
        "{outs:?}"
    );
    assert_eq!(outs.iter().filter(|o| o.meta.replayed).count(), 63);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_store_runs_the_body_once() {
    one_runtime_64(Arc::new(MemoryStore::new())).await;
    let shared: Arc<dyn IdempotencyStore> = Arc::new(MemoryStore::new());
    many_runtimes_64((0..8).map(|_| shared.clone()).collect()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_store_runs_the_body_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idem.db");
    one_runtime_64(Arc::new(SqliteStore::open(&path).unwrap())).await;
    let path2 = dir.path().join("idem2.db");
    let stores = (0..8)
        .map(|_| Arc::new(SqliteStore::open(&path2).unwrap()) as Arc<dyn IdempotencyStore>)
        .collect();
    many_runtimes_64(stores).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_replays_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idem.db");
    let (reg, runs) = track_registry(Duration::ZERO);
    let opts = CallOptions::default();
    {
        let rt = runtime(&reg, Arc::new(SqliteStore::open(&path).unwrap()));
        let first = rt.invoke(call(1, 7, "k1"), &opts).await;
        assert_eq!(first.status(), Status::Success);
        assert!(!first.meta.replayed);
    }
    // A new runtime and connection, as after a process restart.
    let rt = runtime(&reg, Arc::new(SqliteStore::open(&path).unwrap()));
    let again = rt.invoke(call(2, 7, "k1"), &opts).await;
    assert!(again.meta.replayed, "{again:?}");
    assert_eq!(again.data.as_ref().unwrap()["run"], 1);
    let other = rt.invoke(call(3, 8, "k1"), &opts).await;
    assert_eq!(other.error_code(), Some(ErrorCode::IdempotencyConflict));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_unopenable_sqlite_path_is_an_error() {
    assert!(SqliteStore::open("/proc/no/such/dir/idem.db").is_err());
}

#[cfg(feature = "redis")]
mod redis {
    use super::*;
    use common::RedisServer;
    use toolwright_runtime::RedisStore;

    fn store(server: &RedisServer) -> Arc<dyn IdempotencyStore> {
        Arc::new(RedisStore::open(&server.url()).unwrap())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn redis_store_runs_the_body_once() {
        let Some(server) = RedisServer::start() else {
            return;
        };
        one_runtime_64(store(&server)).await;
        many_runtimes_64((0..8).map(|_| store(&server)).collect()).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redis_replays_after_a_restart() {
        let Some(server) = RedisServer::start() else {
            return;
        };
        let (reg, runs) = track_registry(Duration::ZERO);
        let opts = CallOptions::default();
        {
            let rt = runtime(&reg, store(&server));
            assert!(!rt.invoke(call(1, 7, "k1"), &opts).await.meta.replayed);
        }
        let rt = runtime(&reg, store(&server));
        let again = rt.invoke(call(2, 7, "k1"), &opts).await;
        assert!(again.meta.replayed, "{again:?}");
        let other = rt.invoke(call(3, 8, "k1"), &opts).await;
        assert_eq!(other.error_code(), Some(ErrorCode::IdempotencyConflict));
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redis_going_away_means_dependency_unavailable_and_no_run() {
        let Some(mut server) = RedisServer::start() else {
            return;
        };
        let (reg, runs) = track_registry(Duration::ZERO);
        let rt = runtime(&reg, store(&server));
        let opts = CallOptions::default();
        assert_eq!(
            rt.invoke(call(1, 7, "before"), &opts).await.status(),
            Status::Success
        );
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        server.stop();
        let start = std::time::Instant::now();
        let out = rt.invoke(call(2, 8, "after"), &opts).await;
        assert_eq!(
            out.error_code(),
            Some(ErrorCode::DependencyUnavailable),
            "{out:?}"
        );
        assert!(out.message.contains("not run"), "{}", out.message);
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "the tool ran without its store"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
        // Still down on the next call (reconnect fails fast), and still no run.
        let out = rt.invoke(call(3, 8, "after"), &opts).await;
        assert_eq!(out.error_code(), Some(ErrorCode::DependencyUnavailable));
        // A call that needs no idempotency does not need the store.
        let plain = rt
            .invoke(ToolCall::new("c4", "track", json!({"id": 9})), &opts)
            .await;
        assert_eq!(plain.status(), Status::Success);
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }
}

/// The contract every backend keeps.
async fn store_contract(store: Arc<dyn IdempotencyStore>) {
    use toolwright_runtime::{Record, Reservation};
    let lease = Duration::from_secs(30);
    let key = format!("contract-{}", std::process::id());
    assert_eq!(
        store.reserve(&key, "fp", "me", lease).await.unwrap(),
        Reservation::Acquired
    );
    match store.reserve(&key, "fp2", "you", lease).await.unwrap() {
        Reservation::Existing(Record::Pending { fingerprint, owner }) => {
            assert_eq!((fingerprint.as_str(), owner.as_str()), ("fp", "me"));
        }
        other => panic!("{other:?}"),
    }
    // Only the owner releases.
    store.release(&key, "you").await.unwrap();
    assert!(store.get(&key).await.unwrap().is_some());
    store.release(&key, "me").await.unwrap();
    assert_eq!(store.get(&key).await.unwrap(), None);
    // Completed results are returned to later reservations, and a release does not drop them.
    assert_eq!(
        store.reserve(&key, "fp", "me", lease).await.unwrap(),
        Reservation::Acquired
    );
    let out = toolwright_core::Outcome::success(json!({"n": 1}));
    store
        .complete(&key, "fp", &out, Duration::from_secs(60))
        .await
        .unwrap();
    store.release(&key, "me").await.unwrap();
    match store.reserve(&key, "fp", "other", lease).await.unwrap() {
        Reservation::Existing(Record::Completed {
            fingerprint,
            outcome,
        }) => {
            assert_eq!(fingerprint, "fp");
            assert_eq!(*outcome, out);
        }
        other => panic!("{other:?}"),
    }
    // Leases and TTLs expire.
    let short = format!("{key}-short");
    store
        .reserve(&short, "fp", "me", Duration::from_millis(40))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert_eq!(
        store.reserve(&short, "fp", "new", lease).await.unwrap(),
        Reservation::Acquired
    );
    store
        .complete(&short, "fp", &out, Duration::from_millis(40))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert_eq!(store.get(&short).await.unwrap(), None);
}

#[tokio::test]
async fn memory_store_keeps_the_contract() {
    store_contract(Arc::new(MemoryStore::new())).await;
}

#[tokio::test]
async fn sqlite_store_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    store_contract(Arc::new(
        SqliteStore::open(dir.path().join("c.db")).unwrap(),
    ))
    .await;
}

#[cfg(feature = "redis")]
#[tokio::test]
async fn redis_store_keeps_the_contract() {
    let Some(server) = common::RedisServer::start() else {
        return;
    };
    let store = toolwright_runtime::RedisStore::open(&server.url()).unwrap();
    store_contract(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_releases_its_key() {
    let store: Arc<dyn IdempotencyStore> = Arc::new(MemoryStore::new());
    let (reg, runs) = track_registry(Duration::from_secs(5));
    let rt = runtime(&reg, store.clone());
    let opts = CallOptions::default();
    // The caller gives up (drops the future) while the tool runs.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(50),
        rt.invoke(call(1, 7, "dropped"), &opts),
    )
    .await;
    assert!(gave_up.is_err());
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(
        store.get("key:dropped").await.unwrap(),
        None,
        "the key stayed reserved"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// `rediss://`: the same contract and exactly-once over TLS, against a redis-server that speaks
/// only TLS (a self-signed certificate made with openssl for the test).
#[cfg(feature = "redis-tls")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_over_tls_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl is not installed (scripts/setup.sh installs it)");
    assert!(made.status.success(), "{made:?}");
    let Some(server) = common::RedisServer::start_tls(cert, key) else {
        return;
    };
    assert!(server.url().starts_with("rediss://"));
    let store = toolwright_runtime::open_store(&server.url()).unwrap();
    store.ping().await.unwrap();
    store_contract(store.clone()).await;
    one_runtime_64(store).await;
}
