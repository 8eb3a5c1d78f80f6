use super::*;
use crate::service::{ToolService, service_fn};
use serde_json::json;
use std::sync::atomic::{AtomicU32, Ordering};
use toolwright_core::{
    FnTool, SideEffects, Status, ToolCall, ToolEntry, ToolMeta, ToolOutput, ToolSpec,
};

fn entry(idempotent: bool) -> Arc<ToolEntry> {
    let spec = ToolSpec::new(
        "track",
        "Track. Use this when testing.",
        json!({"type": "object", "properties": {"id": {"type": "integer"},
               "idempotency_key": {"type": "string"}}}),
    )
    .with_meta(ToolMeta {
        idempotent,
        side_effects: SideEffects::Write,
        ..ToolMeta::default()
    });
    let tool = FnTool::new(spec, |_, _| async { Ok(ToolOutput::Data(json!(null))) });
    Arc::new(ToolEntry::new(Arc::new(tool)).unwrap())
}

fn counting(delay_ms: u64) -> (BoxService, Arc<AtomicU32>) {
    let runs = Arc::new(AtomicU32::new(0));
    let r = runs.clone();
    let svc = service_fn(move |req: Request| {
        let r = r.clone();
        async move {
            let n = r.fetch_add(1, Ordering::SeqCst) + 1;
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            Outcome::success(json!({"run": n, "id": req.args["id"]}))
        }
    });
    (svc, runs)
}

fn req(entry: &Arc<ToolEntry>, args: serde_json::Value) -> Request {
    let mut r = Request::new(
        ToolCall::new("c", "track", args.clone()),
        entry.clone(),
        args,
    );
    r.session_id = Some("s1".into());
    r
}

fn layer(store: Arc<dyn IdempotencyStore>, inner: BoxService) -> BoxService {
    IdempotencyLayer::new(store, IdempotencyConfig::default()).layer(inner)
}

#[tokio::test]
async fn same_key_same_args_replays_without_running() {
    let (inner, runs) = counting(0);
    let svc = layer(Arc::new(MemoryStore::new()), inner);
    let e = entry(false);
    let a = svc
        .call(req(&e, json!({"id": 7, "idempotency_key": "k1"})))
        .await;
    assert!(!a.meta.replayed);
    let b = svc
        .call(req(&e, json!({"id": 7, "idempotency_key": "k1"})))
        .await;
    assert!(b.meta.replayed);
    assert_eq!(b.data, a.data);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let c = svc
        .call(req(&e, json!({"id": 8, "idempotency_key": "k1"})))
        .await;
    assert_eq!(c.error_code(), Some(ErrorCode::IdempotencyConflict));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn derived_keys_for_idempotent_tools_are_per_session() {
    let (inner, runs) = counting(0);
    let svc = layer(Arc::new(MemoryStore::new()), inner);
    let e = entry(true);
    svc.call(req(&e, json!({"id": 1}))).await;
    let again = svc.call(req(&e, json!({"id": 1}))).await;
    assert!(again.meta.replayed);
    let mut other = req(&e, json!({"id": 1}));
    other.session_id = Some("s2".into());
    assert!(!svc.call(other).await.meta.replayed);
    // Without a key and not idempotent: runs every time.
    let plain = entry(false);
    svc.call(req(&plain, json!({"id": 1}))).await;
    svc.call(req(&plain, json!({"id": 1}))).await;
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn key_for_formats_derived_keys() {
    let e = entry(true);
    let (k, _) = key_for(&req(&e, json!({"id": 1}))).unwrap();
    assert!(k.starts_with("track-s1-"), "{k}");
    assert_eq!(k.len(), "track-s1-".len() + 64);
}

#[tokio::test]
async fn transient_failures_are_not_stored() {
    let runs = Arc::new(AtomicU32::new(0));
    let r = runs.clone();
    let inner = service_fn(move |_req| {
        let n = r.fetch_add(1, Ordering::SeqCst);
        async move {
            if n == 0 {
                Outcome::from_error(ToolError::timeout("slow"))
            } else {
                Outcome::success(json!("ok"))
            }
        }
    });
    let svc = layer(Arc::new(MemoryStore::new()), inner);
    let e = entry(false);
    let a = svc
        .call(req(&e, json!({"id": 1, "idempotency_key": "t"})))
        .await;
    assert_eq!(a.error_code(), Some(ErrorCode::Timeout));
    let b = svc
        .call(req(&e, json!({"id": 1, "idempotency_key": "t"})))
        .await;
    assert_eq!(b.status(), Status::Success);
    assert!(!b.meta.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_duplicates_run_once_in_memory() {
    let (inner, runs) = counting(30);
    let svc = layer(Arc::new(MemoryStore::new()), inner);
    let e = entry(false);
    let futs = (0..64).map(|_| svc.call(req(&e, json!({"id": 7, "idempotency_key": "same"}))));
    let outs = futures::future::join_all(futs).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(outs.iter().all(|o| o.status() == Status::Success));
    assert_eq!(outs.iter().filter(|o| !o.meta.replayed).count(), 1);
}

#[tokio::test]
async fn a_failing_store_means_dependency_unavailable_and_no_run() {
    #[derive(Debug)]
    struct Down;
    impl IdempotencyStore for Down {
        fn backend(&self) -> &'static str {
            "down"
        }
        fn reserve<'a>(
            &'a self,
            _: &'a str,
            _: &'a str,
            _: &'a str,
            _: Duration,
        ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn complete<'a>(
            &'a self,
            _: &'a str,
            _: &'a str,
            _: &'a Outcome,
            _: Duration,
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn release<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn get<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Option<Record>, StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
    }
    impl crate::shared::SharedState for Down {
        fn approval_put<'a>(
            &'a self,
            _: &'a crate::PendingApproval,
            _: Duration,
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn approval_grant<'a>(
            &'a self,
            _: &'a str,
            _: Duration,
        ) -> BoxFuture<'a, Result<Option<crate::PendingApproval>, StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn approval_remove<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn approval_take<'a>(
            &'a self,
            _: &'a str,
            _: Option<&'a str>,
        ) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn approvals(&self) -> BoxFuture<'_, Result<Vec<crate::PendingApproval>, StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn rate_acquire<'a>(
            &'a self,
            _: &'a str,
            _: &'a toolwright_core::RateLimit,
        ) -> BoxFuture<'a, Result<crate::shared::RateDecision, StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
        fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
            Box::pin(async { Err(StoreError::new("down", "refused")) })
        }
    }
    let (inner, runs) = counting(0);
    let svc = layer(Arc::new(Down), inner);
    let e = entry(false);
    let out = svc
        .call(req(&e, json!({"id": 1, "idempotency_key": "x"})))
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::DependencyUnavailable));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // Calls without a key do not need the store.
    let out = svc.call(req(&e, json!({"id": 1}))).await;
    assert_eq!(out.status(), Status::Success);
}

#[tokio::test]
async fn results_expire_after_the_ttl() {
    let (inner, runs) = counting(0);
    let cfg = IdempotencyConfig {
        ttl: Duration::from_millis(40),
        ..IdempotencyConfig::default()
    };
    let svc = IdempotencyLayer::new(Arc::new(MemoryStore::new()), cfg).layer(inner);
    let e = entry(false);
    svc.call(req(&e, json!({"id": 1, "idempotency_key": "ttl"})))
        .await;
    assert!(
        svc.call(req(&e, json!({"id": 1, "idempotency_key": "ttl"})))
            .await
            .meta
            .replayed
    );
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert!(
        !svc.call(req(&e, json!({"id": 1, "idempotency_key": "ttl"})))
            .await
            .meta
            .replayed
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[test]
fn store_urls_parse() {
    assert_eq!(open_store("memory").unwrap().backend(), "memory");
    assert!(open_store("postgres://x").is_err());
    #[cfg(not(feature = "sqlite"))]
    {
        let e = open_store("sqlite:/tmp/x.db").err().unwrap();
        assert!(e.to_string().contains("--features sqlite"), "{e}");
    }
    #[cfg(not(feature = "redis"))]
    {
        let e = open_store("redis://127.0.0.1:1/0").err().unwrap();
        assert!(e.to_string().contains("--features redis"), "{e}");
    }
    #[cfg(feature = "sqlite")]
    sqlite_urls_parse();
    #[cfg(feature = "redis")]
    assert_eq!(
        open_store("redis://127.0.0.1:1/0").unwrap().backend(),
        "redis"
    );
}

#[cfg(feature = "sqlite")]
fn sqlite_urls_parse() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sub/idem.db");
    assert_eq!(
        open_store(&format!("sqlite:{}", p.display()))
            .unwrap()
            .backend(),
        "sqlite"
    );
    assert!(p.exists());
    assert!(open_store("sqlite:").is_err());
}

#[tokio::test]
async fn tool_service_is_used_as_the_inner_service() {
    // The real innermost service works under the layer.
    let svc = layer(
        Arc::new(MemoryStore::new()),
        Arc::new(ToolService::default()),
    );
    let out = svc.call(req(&entry(true), json!({"id": 3}))).await;
    assert_eq!(out.status(), Status::Success);
}

/// Keys stored by earlier versions (which hashed a built `{"tool", "args"}` object) still match.
#[test]
fn the_fingerprint_is_the_hash_of_the_canonical_tool_and_args_object() {
    let args = json!({"b": [1, {"y": 2, "x": "é\"q"}], "a": null});
    assert_eq!(
        super::fingerprint("send_email", &args),
        canonical::hash(&json!({"tool": "send_email", "args": args}))
    );
}
