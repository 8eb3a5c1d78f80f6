//! Fault injection (issue 14): tools that hang, panic, leak a blocking thread or return 100 MB;
//! an idempotency store that is locked, full, killed and restarted, or whose process is killed
//! between "executed" and "recorded". For each fault: no panic, no hang past the deadline, no
//! duplicate side effect, no success for work that did not happen, and the next call works.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use serde_json::{Value, json};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolwright_core::blocking::run_blocking;
use toolwright_core::{
    ErrorCode, FnTool, Registry, SideEffects, Status, ToolCall, ToolMeta, ToolOutput, ToolSpec,
};
use toolwright_runtime::{CallOptions, IdempotencyStore, Runtime, SqliteStore};

fn spec(name: &str, meta: ToolMeta) -> ToolSpec {
    ToolSpec::new(
        name,
        format!("{name}. Use this when testing."),
        json!({"type": "object", "properties": {"idempotency_key": {"type": "string"},
               "n": {"type": "integer"}}}),
    )
    .with_meta(meta)
}

fn meta(timeout_ms: u64, effects: SideEffects) -> ToolMeta {
    ToolMeta {
        timeout_ms: Some(timeout_ms),
        side_effects: effects,
        ..ToolMeta::default()
    }
}

/// A quick sync tool, run the way `#[tool]` runs sync bodies.
fn add_tool() -> FnTool {
    FnTool::new(spec("add", meta(2000, SideEffects::None)), |_, _| async {
        run_blocking("add", || json!(1 + 1))
            .await
            .map(ToolOutput::Data)
    })
}

/// A gate that hung bodies wait on until the test opens it.
#[derive(Clone, Default)]
struct Gate(Arc<(Mutex<bool>, std::sync::Condvar)>);

impl Gate {
    fn wait(&self) {
        let (m, cv) = &*self.0;
        let mut open = m.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
    }
    fn open(&self) {
        let (m, cv) = &*self.0;
        *m.lock().unwrap() = true;
        cv.notify_all();
    }
}

/// A sync tool whose body counts its starts and then blocks until `gate` opens: a leaked
/// blocking thread that no deadline can stop.
fn hung_sync_tool(name: &'static str, gate: Gate, starts: Arc<AtomicU32>, m: ToolMeta) -> FnTool {
    FnTool::new(spec(name, m), move |_, _| {
        let gate = gate.clone();
        let starts = starts.clone();
        async move {
            run_blocking(name, move || {
                starts.fetch_add(1, Ordering::SeqCst);
                gate.wait();
                json!("finished late")
            })
            .await
            .map(ToolOutput::Data)
        }
    })
}

/// Options of a call in its own session: retry budgets are per (session, step, tool), and
/// "the next call works" must not be refused by the budget the faults used up.
fn fresh(session: &str) -> CallOptions {
    CallOptions {
        session_id: Some(session.to_string()),
        ..CallOptions::default()
    }
}

async fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Issue 14, item 1: 40 calls of a tool whose sync body never returns. Each answers TIMEOUT at
/// its deadline; the bodies that started are marked `still_running` and are never retried;
/// the tool ties up at most its own share of blocking threads, so another blocking tool still
/// answers at once; and once the bodies return, the tool works again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leaked_blocking_thread_is_bounded_and_never_retried() {
    let gate = Gate::default();
    let starts = Arc::new(AtomicU32::new(0));
    let reg = Registry::new();
    reg.register(hung_sync_tool(
        "hangs",
        gate.clone(),
        starts.clone(),
        meta(150, SideEffects::Read),
    ))
    .unwrap();
    reg.register(add_tool()).unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let started = Instant::now();
    let calls = (0..40).map(|i| {
        let rt = rt.clone();
        tokio::spawn(async move {
            rt.invoke(
                ToolCall::new(format!("h{i}"), "hangs", json!({})),
                &fresh(&format!("s{i}")),
            )
            .await
        })
    });
    let outs: Vec<_> = futures::future::join_all(calls)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    // Every call answered by its deadline (150 ms, twice for a call that waited for a thread
    // and was retried once), not when the body returns (never, until the gate opens).
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(
        outs.iter()
            .all(|o| o.error_code() == Some(ErrorCode::Timeout))
    );
    let per_tool = toolwright_core::blocking::limits().per_tool;
    let running = outs.iter().filter(|o| o.meta.still_running).count();
    assert_eq!(
        running, per_tool,
        "one still-running answer per started body"
    );
    for o in outs.iter().filter(|o| o.meta.still_running) {
        assert_eq!(o.meta.retries, 0, "a still-running call was retried: {o:?}");
        assert!(!o.error().unwrap().retryable);
    }
    assert_eq!(starts.load(Ordering::SeqCst) as usize, per_tool);
    assert_eq!(toolwright_core::blocking::running("hangs"), per_tool);
    // Another blocking tool is not starved.
    let t = Instant::now();
    let ok = rt
        .invoke(
            ToolCall::new("a", "add", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(ok.data, Some(json!(2)), "{ok:?}");
    assert!(t.elapsed() < Duration::from_secs(1));
    // The bodies return; the tool answers again.
    gate.open();
    wait_until("the hung bodies to return", || {
        toolwright_core::blocking::running("hangs") == 0
    })
    .await;
    let again = rt
        .invoke(
            ToolCall::new("h", "hangs", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(again.status(), Status::Success, "{again:?}");
}

/// A keyed call whose body outlives its deadline keeps its key: a duplicate neither runs the
/// body a second time nor reports success for work that has not finished.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_still_running_keyed_call_keeps_its_key() {
    let gate = Gate::default();
    let starts = Arc::new(AtomicU32::new(0));
    let reg = Registry::new();
    reg.register(hung_sync_tool(
        "charge",
        gate.clone(),
        starts.clone(),
        meta(100, SideEffects::Write),
    ))
    .unwrap();
    let rt = Runtime::builder(Arc::new(reg))
        .idempotency_wait(Duration::from_millis(300))
        .build();
    let args = json!({"idempotency_key": "pay-1", "n": 5});
    let first = rt
        .invoke(
            ToolCall::new("c1", "charge", args.clone()),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(first.error_code(), Some(ErrorCode::Timeout), "{first:?}");
    assert!(first.meta.still_running);
    assert_eq!(first.meta.retries, 0);
    let dup = rt
        .invoke(
            ToolCall::new("c2", "charge", args.clone()),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(
        dup.error_code(),
        Some(ErrorCode::IdempotencyConflict),
        "{dup:?}"
    );
    assert!(dup.message.contains("still running"), "{dup:?}");
    assert_eq!(starts.load(Ordering::SeqCst), 1, "the body ran twice");
    gate.open();
}

/// A tool that hangs (async), and one that panics (async and sync): on time, `INTERNAL` without
/// the panic text, and the next call works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hangs_and_panics_answer_and_the_next_call_works() {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec("sleeps", meta(80, SideEffects::Read)),
        |_, _| async {
            std::future::pending::<()>().await;
            Ok(ToolOutput::Data(json!(null)))
        },
    ))
    .unwrap();
    reg.register(FnTool::new(
        spec("panics_async", meta(1000, SideEffects::Read)),
        |args: Value, _| async move {
            if args.get("n").is_some() {
                panic!("secret panic text");
            }
            Ok(ToolOutput::Data(json!("fine")))
        },
    ))
    .unwrap();
    reg.register(FnTool::new(
        spec("panics_sync", meta(1000, SideEffects::Read)),
        |args: Value, _| async move {
            run_blocking("panics_sync", move || {
                if args.get("n").is_some() {
                    panic!("secret panic text");
                }
                json!("fine")
            })
            .await
            .map(ToolOutput::Data)
        },
    ))
    .unwrap();
    reg.register(add_tool()).unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let opts = CallOptions::default();
    let t = Instant::now();
    let out = rt
        .invoke(ToolCall::new("s", "sleeps", json!({})), &opts)
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Timeout));
    assert!(
        !out.meta.still_running,
        "a dropped async future is not running"
    );
    // Read-only: retried once, so two deadlines.
    assert!(
        t.elapsed() < Duration::from_millis(800),
        "{:?}",
        t.elapsed()
    );
    for tool in ["panics_async", "panics_sync"] {
        let out = rt
            .invoke(ToolCall::new("p", tool, json!({"n": 1})), &opts)
            .await;
        assert_eq!(out.error_code(), Some(ErrorCode::Internal), "{out:?}");
        assert!(
            !serde_json::to_string(&out)
                .unwrap()
                .contains("secret panic text")
        );
        assert_eq!(out.meta.retries, 0, "INTERNAL is not retried");
        let next = rt.invoke(ToolCall::new("p2", tool, json!({})), &opts).await;
        assert_eq!(next.data, Some(json!("fine")), "{next:?}");
    }
    let ok = rt.invoke(ToolCall::new("a", "add", json!({})), &opts).await;
    assert_eq!(ok.data, Some(json!(2)));
}

/// A tool that returns 100 MB: the answer is valid JSON within the budget, marked partial.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_100_mb_result_is_cut_to_the_budget() {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec("flood", meta(20_000, SideEffects::Read)),
        |args: Value, _| async move {
            let n = args.get("n").and_then(Value::as_u64).unwrap_or(0) as usize;
            Ok(ToolOutput::Data(json!({"blob": "\"x".repeat(n / 2)})))
        },
    ))
    .unwrap();
    reg.register(FnTool::new(
        spec("flood_rows", meta(20_000, SideEffects::Read)),
        |_, _| async move {
            let rows: Vec<Value> = (0..1_000_000)
                .map(|i| json!({"id": i, "text": "row of about a hundred bytes".repeat(3)}))
                .collect();
            Ok(ToolOutput::Data(json!({ "rows": rows })))
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let opts = CallOptions::default();
    let t = Instant::now();
    let out = rt
        .invoke(
            ToolCall::new("f", "flood", json!({"n": 100_000_000})),
            &opts,
        )
        .await;
    assert_eq!(out.status(), Status::Partial, "{}", out.message);
    let data = serde_json::to_string(out.data.as_ref().unwrap()).unwrap();
    assert!(
        data.len() <= 16 * 1024 && data.len() > 15 * 1024,
        "{}",
        data.len()
    );
    // A hang guard, not a speed target: generous for a loaded machine.
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    let out = rt
        .invoke(ToolCall::new("r", "flood_rows", json!({})), &opts)
        .await;
    assert_eq!(out.status(), Status::Partial);
    let t = out.meta.truncated.as_ref().unwrap();
    assert_eq!(t.total, 1_000_000);
    assert!(t.showing > 50, "{t:?}");
    let next = rt
        .invoke(ToolCall::new("f2", "flood", json!({"n": 10})), &opts)
        .await;
    assert_eq!(next.status(), Status::Success);
}

/// SQLite locked by another process's writer: a keyed call waits (busy timeout) and then answers
/// `DEPENDENCY_UNAVAILABLE` without running; once the lock goes, the next call runs once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_sqlite_store_refuses_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idem.db");
    let store: Arc<dyn IdempotencyStore> = Arc::new(SqliteStore::open(&path).unwrap());
    let (reg, runs) = common::track_registry(Duration::from_millis(1));
    let rt = Runtime::builder(reg).store(store).build();
    let locker = rusqlite::Connection::open(&path).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let args = json!({"id": 1, "idempotency_key": "locked-1"});
    let t = Instant::now();
    let out = rt
        .invoke(
            ToolCall::new("c", "track", args.clone()),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(
        out.error_code(),
        Some(ErrorCode::DependencyUnavailable),
        "{out:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    assert_eq!(runs.load(Ordering::SeqCst), 0, "ran without a reservation");
    locker.execute_batch("COMMIT;").unwrap();
    let out = rt
        .invoke(
            ToolCall::new("c", "track", args.clone()),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    let again = rt
        .invoke(ToolCall::new("c", "track", args), &CallOptions::default())
        .await;
    assert!(again.meta.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// A full disk under the SQLite store (a 1 MiB tmpfs: mounted directly as root, else inside a
/// user and mount namespace with `unshare -rm`; the test fails if neither is allowed):
/// reservations cannot be written, so keyed calls answer `DEPENDENCY_UNAVAILABLE` and do not
/// run; with space again, the next call runs once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_under_sqlite_refuses_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let mount = || {
        std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
            .arg(&mnt)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !mount() {
        assert!(
            std::env::var_os("TW_FAULT_UNSHARED").is_none(),
            "cannot mount a tmpfs even in a user namespace"
        );
        let status = std::process::Command::new("unshare")
            .args(["-rm"])
            .arg(std::env::current_exe().unwrap())
            .args(["--exact", "a_full_disk_under_sqlite_refuses_and_recovers"])
            .env("TW_FAULT_UNSHARED", "1")
            .status()
            .expect("neither root nor unshare: cannot make a small disk");
        assert!(
            status.success(),
            "the full-disk test failed in its namespace"
        );
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(mnt.clone());
    let path = mnt.join("idem.db");
    let store: Arc<dyn IdempotencyStore> = Arc::new(SqliteStore::open(&path).unwrap());
    let (reg, runs) = common::track_registry(Duration::from_millis(1));
    let rt = Runtime::builder(reg).store(store).build();
    let opts = CallOptions::default();
    let ok = rt
        .invoke(
            ToolCall::new("c", "track", json!({"id": 1, "idempotency_key": "d0"})),
            &opts,
        )
        .await;
    assert_eq!(ok.status(), Status::Success);
    // Fill the disk.
    let filler = mnt.join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 4096];
        while f.write_all(&block).is_ok() {}
    }
    let mut refused = 0;
    for i in 0..20 {
        let out = rt
            .invoke(
                ToolCall::new(
                    "c",
                    "track",
                    json!({"id": 2, "idempotency_key": format!("full-{i}")}),
                ),
                &fresh(&format!("full-{i}")),
            )
            .await;
        match out.error_code() {
            Some(ErrorCode::DependencyUnavailable) => refused += 1,
            None => {} // a reservation that fit in a page already allocated
            other => panic!("unexpected {other:?}: {out:?}"),
        }
    }
    assert!(refused > 0, "nothing was refused on a full disk");
    assert_eq!(
        runs.load(Ordering::SeqCst) as usize,
        1 + 20 - refused,
        "a refused call ran"
    );
    std::fs::remove_file(&filler).unwrap();
    let before = runs.load(Ordering::SeqCst);
    let out = rt
        .invoke(
            ToolCall::new("c", "track", json!({"id": 3, "idempotency_key": "after"})),
            &fresh("after"),
        )
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    let again = rt
        .invoke(
            ToolCall::new("c", "track", json!({"id": 3, "idempotency_key": "after"})),
            &fresh("after"),
        )
        .await;
    assert!(again.meta.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), before + 1);
}

/// The process is SIGKILLed between "executed" and "recorded": the child below runs a keyed call
/// whose body writes a marker file (the side effect) and then hangs; the parent kills it and
/// checks what the SQLite record guarantees (see `idempotency` module docs): while the lease
/// lives, duplicates answer "still running" and nothing runs; after it, the key is free and the
/// next duplicate runs (at least once across a crash, never twice within a lease).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_between_executed_and_recorded() {
    if let Ok(dir) = std::env::var("TW_FAULT_CHILD_DIR") {
        return crash_child(std::path::Path::new(&dir)).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "sigkill_between_executed_and_recorded",
            "--nocapture",
        ])
        .env("TW_FAULT_CHILD_DIR", dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let marker = dir.path().join("effect");
    wait_until("the child's side effect", || marker.exists()).await;
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    let store: Arc<dyn IdempotencyStore> =
        Arc::new(SqliteStore::open(dir.path().join("idem.db")).unwrap());
    let (reg, runs) = common::track_registry(Duration::from_millis(1));
    let rt = Runtime::builder(reg)
        .store(store)
        .default_timeout(Duration::from_millis(100))
        .idempotency_wait(Duration::from_millis(200))
        .build();
    let args = json!({"id": 1, "idempotency_key": "crash-1"});
    let out = rt
        .invoke(
            ToolCall::new("d", "track", args.clone()),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(
        out.error_code(),
        Some(ErrorCode::IdempotencyConflict),
        "{out:?}"
    );
    assert!(out.message.contains("still running"), "{out:?}");
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "ran while the crashed call's lease lived"
    );
    // The child's lease: 4 x its 100 ms deadline + 10 s.
    tokio::time::sleep(Duration::from_millis(10_600)).await;
    let out = rt
        .invoke(
            ToolCall::new("d", "track", args.clone()),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert!(!out.meta.replayed, "a crashed call has no result to replay");
    let again = rt
        .invoke(ToolCall::new("d", "track", args), &CallOptions::default())
        .await;
    assert!(again.meta.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// The child of [`sigkill_between_executed_and_recorded`]: reserves the key, does the side
/// effect, and never records it.
async fn crash_child(dir: &std::path::Path) {
    let store: Arc<dyn IdempotencyStore> =
        Arc::new(SqliteStore::open(dir.join("idem.db")).unwrap());
    let marker = dir.join("effect");
    let reg = Registry::new();
    let spec = ToolSpec::new(
        "track",
        "Record a view. Use this when the user reads something.",
        json!({"type": "object",
               "properties": {"id": {"type": "integer"}, "idempotency_key": {"type": "string"}},
               "required": ["id"], "additionalProperties": false}),
    )
    .with_meta(ToolMeta {
        side_effects: SideEffects::Write,
        timeout_ms: Some(100),
        ..ToolMeta::default()
    });
    reg.register(FnTool::new(spec, move |_, _| {
        let marker = marker.clone();
        async move {
            std::fs::write(&marker, "done").unwrap();
            // Killed here: executed, not recorded.
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(ToolOutput::Data(json!(null)))
        }
    }))
    .unwrap();
    let rt = Runtime::builder(Arc::new(reg)).store(store).build();
    let _ = rt
        .invoke(
            ToolCall::new("c", "track", json!({"id": 1, "idempotency_key": "crash-1"})),
            &CallOptions::default(),
        )
        .await;
    tokio::time::sleep(Duration::from_secs(3600)).await;
}

/// Redis killed and restarted: keyed calls answer `DEPENDENCY_UNAVAILABLE` without running while
/// it is down, and work again (once per key) after it is back on the same port.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_killed_and_restarted() {
    let Some(mut server) = common::RedisServer::start() else {
        return;
    };
    let store = toolwright_runtime::open_store(&server.url()).unwrap();
    let (reg, runs) = common::track_registry(Duration::from_millis(1));
    let rt = Runtime::builder(reg).store(store).build();
    let opts = CallOptions::default();
    let call = |k: &str| ToolCall::new("c", "track", json!({"id": 1, "idempotency_key": k}));
    assert_eq!(rt.invoke(call("r0"), &opts).await.status(), Status::Success);
    server.stop();
    let t = Instant::now();
    let out = rt.invoke(call("r1"), &opts).await;
    assert_eq!(
        out.error_code(),
        Some(ErrorCode::DependencyUnavailable),
        "{out:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(runs.load(Ordering::SeqCst), 1, "ran with the store down");
    server.restart();
    let mut tries = 0;
    let mut out = rt.invoke(call("r1"), &fresh("restart-0")).await;
    // The first call after the restart may still see the broken connection.
    for _ in 0..20 {
        if out.status() == Status::Success {
            break;
        }
        assert_eq!(
            out.error_code(),
            Some(ErrorCode::DependencyUnavailable),
            "{out:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        tries += 1;
        out = rt
            .invoke(call("r1"), &fresh(&format!("restart-{tries}")))
            .await;
    }
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert!(rt.invoke(call("r1"), &fresh("replay")).await.meta.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}
