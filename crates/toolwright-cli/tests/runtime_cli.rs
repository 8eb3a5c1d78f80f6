//! Issue 3's acceptance through the binary: idempotency with `--store` (SQLite and Redis),
//! the confirmation gate, the semantic-search fallback, composition and `stats`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::Path;

/// A `toolwright` command whose files (views db, metrics, sandbox) live in `dir`.
fn tw(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("toolwright").unwrap();
    c.current_dir(dir)
        .env("TOOLWRIGHT_ROOT", dir)
        .env("TOOLWRIGHT_VIEWS_DB", dir.join("views.db"))
        .env("TOOLWRIGHT_STATS_FILE", dir.join("metrics.json"))
        .env_remove("TOOLWRIGHT_SEMANTIC_INDEX")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    c
}

fn run(cmd: &mut Command) -> (i32, Value) {
    let out = cmd.output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

fn track(dir: &Path, store: &str, args: Value) -> (i32, Value) {
    run(tw(dir).args([
        "--store",
        store,
        "call",
        "track_article_view",
        "--args",
        &args.to_string(),
    ]))
}

fn views(dir: &Path) -> Vec<(i64, String, String)> {
    let conn = rusqlite::Connection::open(dir.join("views.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT article_id, session_id, idempotency_key FROM views ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn replay_and_conflict(dir: &Path, store: &str) {
    let args = json!({"article_id": 7, "session_id": "s1", "idempotency_key": "k1"});
    let (code, first) = track(dir, store, args.clone());
    assert_eq!(code, 0, "{first}");
    assert_eq!(first["status"], "success");
    assert_eq!(first["meta"]["replayed"], false);
    // A second process with the same key and arguments: the stored result, not a second view.
    let (code, second) = track(dir, store, args);
    assert_eq!(code, 0, "{second}");
    assert_eq!(second["meta"]["replayed"], true, "{second}");
    assert_eq!(second["data"], first["data"]);
    // Same key, other arguments.
    let (code, conflict) = track(
        dir,
        store,
        json!({"article_id": 8, "session_id": "s1", "idempotency_key": "k1"}),
    );
    assert_eq!(code, 1);
    assert_eq!(
        conflict["error"]["code"], "IDEMPOTENCY_CONFLICT",
        "{conflict}"
    );
    assert_eq!(views(dir), vec![(7, "s1".to_string(), "k1".to_string())]);
}

#[test]
fn sqlite_store_replays_across_processes_and_refuses_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("t.db").display());
    replay_and_conflict(dir.path(), &store);
}

#[test]
fn redis_store_replays_across_processes() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    replay_and_conflict(dir.path(), &server.url());
}

#[test]
fn an_unreachable_store_refuses_keyed_calls() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 1.
    let (code, out) = track(
        dir.path(),
        "redis://127.0.0.1:1/0",
        json!({"article_id": 7, "session_id": "s1", "idempotency_key": "k9"}),
    );
    assert_eq!(code, 1);
    assert_eq!(out["error"]["code"], "DEPENDENCY_UNAVAILABLE", "{out}");
    assert!(!dir.path().join("views.db").exists() || views(dir.path()).is_empty());
}

#[test]
fn a_bad_store_url_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = tw(dir.path())
        .args([
            "--store",
            "postgres://x",
            "call",
            "calculate",
            "--args",
            "{}",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--store"));
}

#[test]
fn the_model_cannot_confirm_a_delete_but_approve_can() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    let call = |args: &str, approve: bool| {
        let mut c = tw(dir.path());
        c.args(["call", "delete_file", "--args", args]);
        if approve {
            c.arg("--approve");
        }
        run(&mut c)
    };
    let (_, out) = call(r#"{"path": "notes.txt", "confirm": true}"#, false);
    assert_ne!(out["status"], "success", "{out}");
    assert!(file.exists(), "a model-side confirm:true deleted the file");
    let (code, out) = call(r#"{"path": "notes.txt"}"#, false);
    assert_eq!(code, 0);
    assert_eq!(out["status"], "needs_confirmation", "{out}");
    assert!(
        out["meta"]["approval_id"]
            .as_str()
            .unwrap()
            .starts_with("approve-")
    );
    assert!(file.exists());
    let (code, out) = call(r#"{"path": "notes.txt"}"#, true);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["status"], "success", "{out}");
    assert!(!file.exists(), "--approve did not delete");
}

#[test]
fn the_keyword_fallback_answers_when_the_semantic_index_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let args = r#"{"query": "making retries safe", "limit": 3}"#;
    let (code, on) = run(tw(dir.path()).args(["call", "search_articles_semantic", "--args", args]));
    assert_eq!(code, 0);
    assert_eq!(on["data"]["method"], "semantic");
    assert!(on["meta"].get("fallback_from").is_none());
    let (code, off) = run(tw(dir.path())
        .env("TOOLWRIGHT_SEMANTIC_INDEX", "off")
        .args(["call", "search_articles_semantic", "--args", args]));
    assert_eq!(code, 0, "{off}");
    assert_eq!(off["status"], "success");
    assert_eq!(off["data"]["method"], "keyword");
    assert_eq!(off["meta"]["tool"], "search_articles_keyword");
    assert_eq!(off["meta"]["fallback_from"], "search_articles_semantic");
    assert!(
        off["message"].as_str().unwrap().contains("fallback"),
        "{off}"
    );
    assert_eq!(off["data"]["results"][0]["id"], 4);
}

#[test]
fn daily_reading_composes_search_filter_and_tracking() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("idem.db").display());
    let suggest = |extra_env: Option<(&str, &str)>| {
        let mut c = tw(dir.path());
        if let Some((k, v)) = extra_env {
            c.env(k, v);
        }
        c.args([
            "--store",
            &store,
            "call",
            "suggest_daily_reading",
            "--args",
            r#"{"topic": "idempotency keys and retries", "session_id": "reader", "count": 1}"#,
        ]);
        run(&mut c)
    };
    let (code, first) = suggest(None);
    assert_eq!(code, 0, "{first}");
    let first_id = first["data"]["suggestions"][0]["article"]["id"].clone();
    assert_eq!(
        first["data"]["search"]["answered_by"],
        "search_articles_semantic"
    );
    // The next suggestion skips what was read, and works on the keyword fallback too.
    let (code, second) = suggest(Some(("TOOLWRIGHT_SEMANTIC_INDEX", "off")));
    assert_eq!(code, 0, "{second}");
    let second_id = second["data"]["suggestions"][0]["article"]["id"].clone();
    assert_ne!(first_id, second_id);
    assert_eq!(
        second["data"]["search"]["answered_by"],
        "search_articles_keyword"
    );
    assert!(
        second["message"].as_str().unwrap().contains("unavailable"),
        "{second}"
    );
    let v = views(dir.path());
    assert_eq!(v.len(), 2);
    assert!(
        v.iter()
            .all(|(_, s, k)| s == "reader" && k.starts_with("daily-reader-"))
    );
}

#[test]
fn stats_reports_the_calls_of_earlier_commands() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("t.db").display());
    let args = json!({"article_id": 3, "session_id": "s", "idempotency_key": "x"});
    track(dir.path(), &store, args.clone());
    track(dir.path(), &store, args);
    run(tw(dir.path())
        .env("TOOLWRIGHT_SEMANTIC_INDEX", "off")
        .args([
            "call",
            "search_articles_semantic",
            "--args",
            r#"{"query": "redis"}"#,
        ]));
    let (code, stats) = run(tw(dir.path()).args(["stats", "--format", "json"]));
    assert_eq!(code, 0);
    let t = &stats["tools"]["track_article_view"];
    assert_eq!(t["calls"], 2, "{stats}");
    assert_eq!(t["replays"], 1);
    assert_eq!(stats["tools"]["search_articles_keyword"]["fallbacks"], 1);
    let out = tw(dir.path())
        .args(["stats", "--format", "prometheus"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("toolwright_tool_calls_total{tool=\"track_article_view\"} 2"),
        "{text}"
    );
    assert!(text.contains("toolwright_tool_replays_total{tool=\"track_article_view\"} 1"));
    assert!(text.contains("# TYPE toolwright_tool_duration_ms histogram"));
    let out = tw(dir.path()).args(["stats"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("track_article_view"));
    tw(dir.path()).args(["stats", "--reset"]).output().unwrap();
    let (_, after) = run(tw(dir.path()).args(["stats", "--format", "json"]));
    assert_eq!(after["tools"], json!({}));
}

/// A redis-server of our own on a free loopback port, stopped on drop.
struct RedisServer {
    port: u16,
    child: std::process::Child,
}

impl RedisServer {
    fn start() -> Option<RedisServer> {
        let bin = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
            .into_iter()
            .find(|p| Path::new(p).exists());
        let Some(bin) = bin else {
            if std::env::var("TOOLWRIGHT_SKIP_REDIS").as_deref() == Ok("1") {
                eprintln!("redis-server not found; skipping (TOOLWRIGHT_SKIP_REDIS=1)");
                return None;
            }
            panic!(
                "redis-server is not installed (apt-get install redis-server, or \
                 scripts/setup.sh); set TOOLWRIGHT_SKIP_REDIS=1 to skip knowingly"
            );
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(bin)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let server = RedisServer { port, child };
        for _ in 0..500 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("redis-server did not listen on port {port}");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
