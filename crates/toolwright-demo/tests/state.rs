//! Typed state: every piece of the demo tools' state lives in the registry, so two registries
//! built with different configs in one process do not see each other's.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use toolwright::{ErrorCode, Outcome, Registry, Status, ToolCall};
use toolwright_demo::DemoConfig;
use toolwright_demo::articles::{ArticlesConfig, ArticlesState};
use toolwright_demo::files::FilesState;
use toolwright_runtime::{CallOptions, Runtime};

/// One call through a runtime over `reg` (a fresh one: these tests look at the registries'
/// state, not at what a runtime remembers between calls).
async fn call(reg: &Arc<Registry>, name: &str, args: Value) -> Outcome {
    call_with(reg, name, args, &CallOptions::default()).await
}

async fn call_with(reg: &Arc<Registry>, name: &str, args: Value, opts: &CallOptions) -> Outcome {
    Runtime::new(reg.clone())
        .invoke(ToolCall::new("c", name, args), opts)
        .await
}

fn demo(root: &Path) -> Arc<Registry> {
    Arc::new(
        toolwright_demo::registry(DemoConfig {
            root: root.to_path_buf(),
        })
        .unwrap(),
    )
}

fn sandbox(dir: &Path, own: &str) {
    std::fs::write(dir.join("whoami.txt"), own).unwrap();
    std::fs::write(dir.join(format!("only-{own}.txt")), own).unwrap();
}

#[tokio::test]
async fn two_registries_keep_their_own_sandbox() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    sandbox(a.path(), "alpha");
    sandbox(b.path(), "beta");
    let ra = demo(a.path());
    let rb = demo(b.path());

    // Built in this order, each still reads its own root (no "last config wins").
    for (reg, own) in [(&ra, "alpha"), (&rb, "beta"), (&ra, "alpha")] {
        let o = call(reg, "read_file", json!({"path": "whoami.txt"})).await;
        assert_eq!(o.data.unwrap()["content"], json!(own));
        let o = call(reg, "search_files", json!({"query": "only-"})).await;
        assert_eq!(o.data.unwrap()["paths"], json!([format!("only-{own}.txt")]));
    }
    let o = call(&ra, "read_file", json!({"path": "only-beta.txt"})).await;
    assert_eq!(o.error_code(), Some(ErrorCode::NotFound));

    // The confirmation preview looks in the registry's own sandbox too.
    let o = call(&rb, "delete_file", json!({"path": "only-beta.txt"})).await;
    assert_eq!(o.status(), Status::NeedsConfirmation);
    assert_eq!(o.data.as_ref().unwrap()["exists"], json!(true));
    let o = call(&ra, "delete_file", json!({"path": "only-beta.txt"})).await;
    assert_eq!(o.data.as_ref().unwrap()["exists"], json!(false));

    // Approved, a deletion in one sandbox leaves the other alone.
    let approved = CallOptions {
        approved: true,
        ..CallOptions::default()
    };
    let o = call_with(&ra, "delete_file", json!({"path": "whoami.txt"}), &approved).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert!(!a.path().join("whoami.txt").exists());
    assert!(b.path().join("whoami.txt").exists());
}

#[tokio::test]
async fn the_hard_link_policy_is_per_registry() {
    let (a, b, outside) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    std::fs::write(outside.path().join("shared.txt"), "linked").unwrap();
    for dir in [a.path(), b.path()] {
        std::fs::hard_link(outside.path().join("shared.txt"), dir.join("hard.txt")).unwrap();
    }
    let ra = demo(a.path());
    let rb = demo(b.path());
    ra.state::<FilesState>().unwrap().set_strict_links(false);
    let o = call(&ra, "read_file", json!({"path": "hard.txt"})).await;
    assert_eq!(o.data.unwrap()["content"], json!("linked"));
    let o = call(&rb, "read_file", json!({"path": "hard.txt"})).await;
    assert_eq!(o.error_code(), Some(ErrorCode::PermissionDenied));
}

fn with_articles(root: &Path, config: ArticlesConfig) -> Arc<Registry> {
    let reg = demo(root);
    reg.insert_state(ArticlesState::new(config));
    reg
}

#[tokio::test]
async fn two_registries_keep_their_own_views_and_index() {
    let dir = tempfile::tempdir().unwrap();
    let (db_a, db_b) = (dir.path().join("a/views.db"), dir.path().join("b/views.db"));
    let ra = with_articles(
        dir.path(),
        ArticlesConfig {
            semantic_index: Some(true),
            views_db: Some(db_a.clone()),
        },
    );
    let rb = with_articles(
        dir.path(),
        ArticlesConfig {
            semantic_index: Some(false),
            views_db: Some(db_b.clone()),
        },
    );
    let view = json!({"article_id": 7, "session_id": "s1", "idempotency_key": "k-7"});
    let o = call(&ra, "track_article_view", view).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    let seen = |reg: &Arc<Registry>| {
        reg.state::<ArticlesState>()
            .unwrap()
            .viewed_articles("s1")
            .unwrap()
    };
    assert_eq!(seen(&ra).into_iter().collect::<Vec<_>>(), vec![7]);
    assert!(seen(&rb).is_empty(), "B's views database is its own");
    assert!(db_a.exists() && db_b.exists());
    assert_eq!(
        ra.state::<ArticlesState>().unwrap().views_db_path(),
        db_a,
        "each state keeps its path"
    );

    let q = json!({"query": "making retries safe"});
    let o = call(&ra, "search_articles_semantic", q.clone()).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert_eq!(o.meta.fallback_from, None);
    // B's index is off: its semantic search is unavailable, and the runtime answers with the
    // declared fallback.
    let o = call(&rb, "search_articles_semantic", q).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert_eq!(o.meta.tool, "search_articles_keyword");
    assert_eq!(
        o.meta.fallback_from.as_deref(),
        Some("search_articles_semantic")
    );
}

#[tokio::test]
async fn a_tool_without_its_state_says_which_is_missing() {
    let reg = Arc::new(Registry::new());
    reg.register(toolwright_demo::weather::GetWeatherTool)
        .unwrap();
    let o = call(&reg, "get_weather", json!({"city": "Paris"})).await;
    assert_eq!(o.error_code(), Some(ErrorCode::Internal));
    let e = o.into_error().unwrap();
    // The model sees a plain internal error; the host's detail names the missing state.
    assert!(e.detail.unwrap_or_default().contains("WeatherState"));
}
