//! What replicas share through the store besides idempotency records, on each backend:
//! approvals (asked through one runtime, granted through another, used once) and rate limits
//! (one budget for every runtime sharing the store).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use toolwright_core::{
    ErrorCode, FnTool, RateLimit, Registry, SideEffects, Status, ToolCall, ToolOutput, ToolSpec,
};
use toolwright_runtime::{
    CallOptions, IdempotencyStore, MemoryStore, PendingApproval, RateDecision, Runtime, SqliteStore,
};

/// `delete_file` (needs approval) and `send_sms` (2 calls per minute), counting their runs.
fn registry(runs: Arc<AtomicU32>) -> Arc<Registry> {
    let reg = Registry::new();
    let r = runs.clone();
    reg.register(FnTool::new(
        ToolSpec::new(
            "delete_file",
            "Delete a file. Use this when the user asks to delete one.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        )
        .side_effects(SideEffects::Destructive),
        move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async { Ok(ToolOutput::Data(json!({"deleted": true}))) }
        },
    ))
    .unwrap();
    let mut sms = ToolSpec::new(
        "send_sms",
        "Send a text message. Use this when the user asks to text someone.",
        json!({"type": "object", "properties": {"to": {"type": "string"}}}),
    );
    sms.meta.rate_limit = Some(RateLimit {
        calls: 2,
        period_ms: 60_000,
        burst: None,
        per_caller: false,
    });
    reg.register(FnTool::new(sms, move |_, _| {
        runs.fetch_add(1, Ordering::SeqCst);
        async { Ok(ToolOutput::Data(json!({"sent": true}))) }
    }))
    .unwrap();
    Arc::new(reg)
}

/// Two runtimes (two "replicas") over stores opened by `open`.
async fn approvals_and_limits_are_shared(open: impl Fn() -> Arc<dyn IdempotencyStore>) {
    let runs = Arc::new(AtomicU32::new(0));
    let reg = registry(runs.clone());
    let a = Runtime::builder(reg.clone()).store(open()).build();
    let b = Runtime::builder(reg).store(open()).build();
    let opts = CallOptions::default();
    let args = json!({"path": "/tmp/x"});
    let asked = a
        .invoke(ToolCall::new("1", "delete_file", args.clone()), &opts)
        .await;
    assert_eq!(asked.status(), Status::NeedsConfirmation, "{asked:?}");
    let id = asked.meta.approval_id.clone().unwrap();
    // B sees the request and grants it.
    let pending = b.pending_approvals().await.unwrap();
    assert!(pending.iter().any(|p| p.approval_id == id), "{pending:?}");
    b.approve(&id).await.unwrap();
    // The call, repeated through either runtime, runs once.
    let ran = b
        .invoke(ToolCall::new("2", "delete_file", args.clone()), &opts)
        .await;
    assert_eq!(ran.status(), Status::Success, "{ran:?}");
    let again = a
        .invoke(ToolCall::new("3", "delete_file", args.clone()), &opts)
        .await;
    assert_eq!(again.status(), Status::NeedsConfirmation);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(
        a.deny(&id).await.unwrap(),
        "the new request was not recorded"
    );
    assert!(
        b.approve(&id).await.is_err(),
        "a denied request was approved"
    );
    // The rate limit (2 per minute) holds across both.
    let sms = |i: &str| ToolCall::new(i, "send_sms", json!({"to": "bob"}));
    assert_eq!(a.invoke(sms("4"), &opts).await.status(), Status::Success);
    assert_eq!(b.invoke(sms("5"), &opts).await.status(), Status::Success);
    let over = a.invoke(sms("6"), &opts).await;
    assert_eq!(over.error_code(), Some(ErrorCode::RateLimited), "{over:?}");
    assert!(over.error().unwrap().retry_after_ms.unwrap() > 0);
    assert_eq!(
        b.invoke(sms("7"), &opts).await.error_code(),
        Some(ErrorCode::RateLimited)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

/// The store-level contract of approvals: put keeps the first, take uses a grant once and only
/// for its session, expired entries are gone.
async fn approval_contract(store: Arc<dyn IdempotencyStore>) {
    let ttl = Duration::from_secs(60);
    let p = |id: &str, session: Option<&str>| PendingApproval {
        approval_id: id.to_string(),
        tool: "delete_file".into(),
        session_id: session.map(str::to_string),
        preview: json!({"action": "delete", "path": "a"}),
        approved: false,
    };
    store.approval_put(&p("a1", Some("s1")), ttl).await.unwrap();
    assert!(!store.approval_take("a1", Some("s1")).await.unwrap());
    let granted = store.approval_grant("a1", ttl).await.unwrap().unwrap();
    assert!(granted.approved);
    assert_eq!(granted.preview["path"], "a");
    // A second put does not reset the grant.
    store.approval_put(&p("a1", Some("s1")), ttl).await.unwrap();
    assert!(!store.approval_take("a1", Some("other")).await.unwrap());
    assert!(!store.approval_take("a1", None).await.unwrap());
    assert!(store.approval_take("a1", Some("s1")).await.unwrap());
    assert!(!store.approval_take("a1", Some("s1")).await.unwrap());
    assert_eq!(store.approval_grant("nope", ttl).await.unwrap(), None);
    // No session on either side matches.
    store.approval_put(&p("a2", None), ttl).await.unwrap();
    store.approval_grant("a2", ttl).await.unwrap().unwrap();
    assert!(!store.approval_take("a2", Some("s1")).await.unwrap());
    assert!(store.approval_take("a2", None).await.unwrap());
    // Expiry.
    store
        .approval_put(&p("a3", None), Duration::from_millis(40))
        .await
        .unwrap();
    assert_eq!(store.approvals().await.unwrap().len(), 1);
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert!(store.approvals().await.unwrap().is_empty());
    assert!(!store.approval_remove("a3").await.unwrap());
    // Rate limits: a burst of 3 at 10/s, then a wait of about one interval.
    let limit = RateLimit {
        calls: 10,
        period_ms: 1000,
        burst: Some(3),
        per_caller: false,
    };
    for _ in 0..3 {
        assert_eq!(
            store.rate_acquire("contract", &limit).await.unwrap(),
            RateDecision::Allowed
        );
    }
    match store.rate_acquire("contract", &limit).await.unwrap() {
        RateDecision::Limited { retry_after_ms } => {
            assert!((1..=100).contains(&retry_after_ms), "{retry_after_ms}");
        }
        RateDecision::Allowed => panic!("a fourth call within the burst of 3 ran"),
    }
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(
        store.rate_acquire("contract", &limit).await.unwrap(),
        RateDecision::Allowed
    );
    store.ping().await.unwrap();
}

#[tokio::test]
async fn memory_store_shares_approvals_and_limits() {
    let store: Arc<dyn IdempotencyStore> = Arc::new(MemoryStore::new());
    approvals_and_limits_are_shared(|| store.clone()).await;
    approval_contract(Arc::new(MemoryStore::new())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_store_shares_approvals_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    // Two connections to one file, as two processes would have.
    approvals_and_limits_are_shared(|| Arc::new(SqliteStore::open(&path).unwrap())).await;
    approval_contract(Arc::new(
        SqliteStore::open(dir.path().join("contract.db")).unwrap(),
    ))
    .await;
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_shares_approvals_and_limits() {
    let Some(server) = common::RedisServer::start() else {
        return;
    };
    let url = server.url();
    approvals_and_limits_are_shared(|| {
        Arc::new(toolwright_runtime::RedisStore::open(&url).unwrap())
    })
    .await;
    approval_contract(Arc::new(
        toolwright_runtime::RedisStore::open(&url).unwrap(),
    ))
    .await;
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gated_calls_answer_dependency_unavailable_while_redis_is_down() {
    let Some(mut server) = common::RedisServer::start() else {
        return;
    };
    let runs = Arc::new(AtomicU32::new(0));
    let rt = Runtime::builder(registry(runs.clone()))
        .store(Arc::new(
            toolwright_runtime::RedisStore::open(&server.url()).unwrap(),
        ))
        .build();
    rt.ping_store().await.unwrap();
    server.stop();
    assert!(rt.ping_store().await.is_err());
    let opts = CallOptions::default();
    for name in ["delete_file", "send_sms"] {
        let out = rt.invoke(ToolCall::new("1", name, json!({})), &opts).await;
        assert_eq!(
            out.error_code(),
            Some(ErrorCode::DependencyUnavailable),
            "{name}: {out:?}"
        );
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // Back up: it answers again without a restart of the runtime.
    server.restart();
    let mut ok = false;
    for _ in 0..50 {
        if rt.ping_store().await.is_ok() {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ok, "the store did not come back after Redis restarted");
    let out = rt
        .invoke(ToolCall::new("2", "send_sms", json!({"to": "x"})), &opts)
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
}
