//! Drives `toolwright serve --http --stateless --json-response` replicas behind a load balancer
//! and checks that they behave as one service (run by `scripts/replicas.sh`, which starts Redis,
//! the replicas and HAProxy, kills a replica, stops Redis, and counts side effects in the demo's
//! views database with sqlite3).
//!
//! ```text
//! replicas_check SCENARIO --lb URL [--replica URL]... [--token T] [--admin-token T]
//!                [--clients 64] [--seconds 5] [--calls 20] [--rate N] [--keys-out FILE]
//!                [--kill-pid PID --kill-after N]
//! ```
//!
//! Scenarios (each prints one JSON line and exits non-zero when its check fails):
//! - `idem`: every client calls `track_article_view` with one idempotency key at once; all
//!   answers succeed with the same `view_id`;
//! - `approval`: `delete_file` asked through replica 1, approved through replica 2's admin
//!   endpoint, run through replica 3; the same call again asks again;
//! - `rate`: clients call `calculate` (limited to `--rate` per second by the catalog) for
//!   `--seconds`; the successes are within 10% of `rate × seconds`;
//! - `load`: each client makes `--calls` `track_article_view` calls with keys of its own,
//!   retrying a call with the same key on a transport error, a 5xx or a transient envelope
//!   until it gets an answer; prints req/s and latency percentiles and writes the keys answered
//!   `success` to `--keys-out` (the script checks each has exactly one row); with `--kill-pid`,
//!   the driver SIGKILLs that process once `--kill-after` calls have been answered, so the
//!   kill lands inside the load however fast or slow the machine is;
//! - `outage`: like `load` for `--seconds` without retries, counting answers by second and
//!   code; the keys answered `success` go to `--keys-out`, the keys answered
//!   `DEPENDENCY_UNAVAILABLE` to `--keys-out`.unavailable (the script checks they have no row).

// Indexing a serde_json::Value yields Null for what is missing; it never panics.
#![allow(clippy::indexing_slicing)]

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
struct Opts {
    scenario: String,
    lb: String,
    replicas: Vec<String>,
    token: Option<String>,
    admin_token: Option<String>,
    clients: usize,
    seconds: u64,
    calls: usize,
    rate: f64,
    keys_out: Option<String>,
    tag: String,
    kill_pid: Option<u32>,
    kill_after: u64,
}

fn parse_opts() -> Result<Opts, String> {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().ok_or("give a scenario")?;
    let mut o = Opts {
        scenario,
        lb: String::new(),
        replicas: Vec::new(),
        token: None,
        admin_token: None,
        clients: 64,
        seconds: 5,
        calls: 20,
        rate: 0.0,
        keys_out: None,
        tag: format!("run{}", std::process::id()),
        kill_pid: None,
        kill_after: 0,
    };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--lb" => o.lb = value,
            "--replica" => o.replicas.push(value),
            "--token" => o.token = Some(value),
            "--admin-token" => o.admin_token = Some(value),
            "--clients" => o.clients = usize::try_from(num(&value)?).map_err(|e| e.to_string())?,
            "--seconds" => o.seconds = num(&value)?,
            "--calls" => o.calls = usize::try_from(num(&value)?).map_err(|e| e.to_string())?,
            "--rate" => o.rate = value.parse().map_err(|e| format!("--rate: {e}"))?,
            "--keys-out" => o.keys_out = Some(value),
            "--tag" => o.tag = value,
            "--kill-pid" => {
                o.kill_pid = Some(u32::try_from(num(&value)?).map_err(|e| e.to_string())?)
            }
            "--kill-after" => o.kill_after = num(&value)?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if o.lb.is_empty() {
        return Err("give --lb URL".into());
    }
    Ok(o)
}

/// How one call ended, from the client's side.
#[derive(Debug, Clone)]
enum Answer {
    /// The envelope (`structuredContent`).
    Envelope(Value),
    /// No envelope: connection refused or cut, a 5xx, a body that is not an answer.
    Transport(String),
}

impl Answer {
    /// What went wrong without an envelope (empty with one).
    fn transport_error(&self) -> &str {
        match self {
            Answer::Envelope(_) => "",
            Answer::Transport(e) => e,
        }
    }

    fn code(&self) -> String {
        match self {
            Answer::Envelope(e) => e["error"]["code"].as_str().map_or_else(
                || e["status"].as_str().unwrap_or("?").to_string(),
                str::to_string,
            ),
            Answer::Transport(_) => "TRANSPORT".into(),
        }
    }
}

#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    token: Option<String>,
}

impl Client {
    fn new(token: Option<String>) -> Result<Self, String> {
        // One connection per client (no pool sharing), so the balancer spreads the clients.
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Client { http, token })
    }

    async fn call(&self, base: &str, name: &str, args: Value) -> Answer {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": args}});
        let mut req = self
            .http
            .post(format!("{base}/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_string());
        if let Some(t) = &self.token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => return Answer::Transport(e.to_string()),
        };
        let status = resp.status();
        let text = match resp.text().await {
            Ok(t) => t,
            Err(e) => return Answer::Transport(e.to_string()),
        };
        if !status.is_success() {
            return Answer::Transport(format!("HTTP {status}: {}", text.trim()));
        }
        // JSON, or SSE whose data line carries the answer.
        let json = text
            .lines()
            .find_map(|l| l.strip_prefix("data:"))
            .unwrap_or(&text);
        match serde_json::from_str::<Value>(json.trim()) {
            Ok(m) if m["result"]["structuredContent"].is_object() => {
                Answer::Envelope(m["result"]["structuredContent"].clone())
            }
            Ok(m) => Answer::Transport(format!("not an answer: {m}")),
            Err(e) => Answer::Transport(format!("bad body ({e}): {text}")),
        }
    }

    async fn admin(&self, base: &str, path: &str, token: &str) -> Result<Value, String> {
        let resp = self
            .http
            .post(format!("{base}{path}"))
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = resp.status();
        let text = resp.text().await.map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!("HTTP {status}: {text}"));
        }
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }
}

fn view_args(key: &str) -> Value {
    json!({"article_id": 1, "session_id": "replicas", "idempotency_key": key})
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or(0.0)
}

async fn idem(o: &Opts) -> Result<Value, String> {
    let key = format!("{}-same", o.tag);
    let mut tasks = Vec::new();
    for _ in 0..o.clients {
        let c = Client::new(o.token.clone())?;
        let (lb, key) = (o.lb.clone(), key.clone());
        tasks.push(tokio::spawn(async move {
            c.call(&lb, "track_article_view", view_args(&key)).await
        }));
    }
    let mut ids = BTreeMap::<String, usize>::new();
    let mut codes = BTreeMap::<String, usize>::new();
    for t in tasks {
        let a = t.await.map_err(|e| e.to_string())?;
        *codes.entry(a.code()).or_default() += 1;
        if let Answer::Envelope(e) = &a {
            *ids.entry(e["data"]["view_id"].to_string()).or_default() += 1;
        }
    }
    let ok = codes.get("success") == Some(&o.clients) && ids.len() == 1;
    Ok(json!({"scenario": "idem", "key": key, "ok": ok, "codes": codes, "view_ids": ids}))
}

async fn approval(o: &Opts) -> Result<Value, String> {
    let [a, b, c] = o
        .replicas
        .get(..3)
        .and_then(|r| <&[String; 3]>::try_from(r).ok())
        .ok_or("approval needs three --replica URLs")?;
    let admin = o
        .admin_token
        .as_deref()
        .ok_or("approval needs --admin-token")?;
    let client = Client::new(o.token.clone())?;
    let args = json!({"path": format!("{}-approve-me.txt", o.tag)});
    let asked = client.call(a, "delete_file", args.clone()).await;
    let Answer::Envelope(asked) = asked else {
        return Err(format!("asking failed: {asked:?}"));
    };
    let id = asked["meta"]["approval_id"]
        .as_str()
        .ok_or_else(|| format!("no approval id: {asked}"))?
        .to_string();
    let granted = client
        .admin(b, &format!("/approvals/{id}/approve"), admin)
        .await?;
    let ran = client.call(c, "delete_file", args.clone()).await;
    let again = client.call(&o.lb, "delete_file", args).await;
    let ok = asked["status"] == "needs_confirmation"
        && ran.code() == "success"
        && again.code() == "needs_confirmation";
    Ok(
        json!({"scenario": "approval", "ok": ok, "approval_id": id, "granted": granted,
              "ran": ran.code(), "again": again.code()}),
    )
}

async fn rate(o: &Opts) -> Result<Value, String> {
    let until = Instant::now() + Duration::from_secs(o.seconds);
    let started = Instant::now();
    let ok_count = Arc::new(AtomicU64::new(0));
    let limited = Arc::new(AtomicU64::new(0));
    let other = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for _ in 0..o.clients {
        let c = Client::new(o.token.clone())?;
        let lb = o.lb.clone();
        let (ok_count, limited, other) = (ok_count.clone(), limited.clone(), other.clone());
        tasks.push(tokio::spawn(async move {
            while Instant::now() < until {
                let a = c.call(&lb, "calculate", json!({"expression": "6*7"})).await;
                match a.code().as_str() {
                    "success" => ok_count.fetch_add(1, Ordering::Relaxed),
                    "RATE_LIMITED" => {
                        // Clients that honour retry_after_ms, capped so the load stays on.
                        let wait = match &a {
                            Answer::Envelope(e) => {
                                e["error"]["retry_after_ms"].as_u64().unwrap_or(10)
                            }
                            Answer::Transport(_) => 10,
                        };
                        tokio::time::sleep(Duration::from_millis(wait.min(50))).await;
                        limited.fetch_add(1, Ordering::Relaxed)
                    }
                    _ => other.fetch_add(1, Ordering::Relaxed),
                };
            }
        }));
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())?;
    }
    let secs = started.elapsed().as_secs_f64();
    #[allow(clippy::cast_precision_loss)]
    let got = ok_count.load(Ordering::Relaxed) as f64;
    // GCRA allows the steady rate plus the burst (2 in scripts/replicas.sh's catalog).
    let expected = o.rate * secs + 2.0;
    let ratio = got / expected.max(1.0);
    let ok = (0.9..=1.1).contains(&ratio) && other.load(Ordering::Relaxed) == 0;
    Ok(
        json!({"scenario": "rate", "ok": ok, "rate": o.rate, "seconds": secs, "allowed": got,
              "expected": expected, "ratio": ratio,
              "limited": limited.load(Ordering::Relaxed), "other": other.load(Ordering::Relaxed)}),
    )
}

/// A transient answer that a client retries with the same key.
fn transient(a: &Answer) -> bool {
    match a {
        Answer::Transport(_) => true,
        Answer::Envelope(e) => {
            matches!(
                e["error"]["code"].as_str(),
                Some("DEPENDENCY_UNAVAILABLE" | "TIMEOUT" | "CANCELLED" | "INTERNAL")
            ) || (e["error"]["code"] == "IDEMPOTENCY_CONFLICT"
                && e["message"]
                    .as_str()
                    .unwrap_or("")
                    .contains("still running"))
        }
    }
}

struct LoadResult {
    latencies: Vec<f64>,
    codes: BTreeMap<String, usize>,
    done_keys: Vec<String>,
    retries: usize,
    gave_up: Vec<String>,
    /// The last transport error a client retried after.
    last_transport: String,
}

async fn load_client(
    c: Client,
    lb: String,
    tag: String,
    client: usize,
    calls: usize,
    answered: Arc<AtomicU64>,
) -> LoadResult {
    let mut r = LoadResult {
        latencies: Vec::with_capacity(calls),
        codes: BTreeMap::new(),
        done_keys: Vec::new(),
        retries: 0,
        gave_up: Vec::new(),
        last_transport: String::new(),
    };
    for i in 0..calls {
        let key = format!("{tag}-c{client}-{i}");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let t = Instant::now();
            let a = c.call(&lb, "track_article_view", view_args(&key)).await;
            if !transient(&a) {
                answered.fetch_add(1, Ordering::Relaxed);
                r.latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                *r.codes.entry(a.code()).or_default() += 1;
                if a.code() == "success" {
                    r.done_keys.push(key);
                }
                break;
            }
            if Instant::now() > deadline {
                r.gave_up.push(key);
                break;
            }
            r.retries += 1;
            if !a.transport_error().is_empty() {
                r.last_transport = a.transport_error().to_string();
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    r
}

/// SIGKILLs `pid` once `after` calls have been answered; returns how many had been answered
/// when the signal went, or `None` when the load ended first.
fn kill_when(
    pid: u32,
    after: u64,
    answered: Arc<AtomicU64>,
) -> tokio::task::JoinHandle<Option<u64>> {
    tokio::spawn(async move {
        loop {
            let n = answered.load(Ordering::Relaxed);
            if n >= after {
                let killed = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status()
                    .is_ok_and(|s| s.success());
                return killed.then_some(n);
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
}

async fn load(o: &Opts) -> Result<Value, String> {
    let started = Instant::now();
    let answered = Arc::new(AtomicU64::new(0));
    let killer = o
        .kill_pid
        .map(|pid| kill_when(pid, o.kill_after, Arc::clone(&answered)));
    let mut tasks = Vec::new();
    for client in 0..o.clients {
        let c = Client::new(o.token.clone())?;
        tasks.push(tokio::spawn(load_client(
            c,
            o.lb.clone(),
            o.tag.clone(),
            client,
            o.calls,
            Arc::clone(&answered),
        )));
    }
    let mut all = LoadResult {
        latencies: Vec::new(),
        codes: BTreeMap::new(),
        done_keys: Vec::new(),
        retries: 0,
        gave_up: Vec::new(),
        last_transport: String::new(),
    };
    for t in tasks {
        let r = t.await.map_err(|e| e.to_string())?;
        all.latencies.extend(r.latencies);
        for (k, v) in r.codes {
            *all.codes.entry(k).or_default() += v;
        }
        all.done_keys.extend(r.done_keys);
        all.retries += r.retries;
        all.gave_up.extend(r.gave_up);
        if !r.last_transport.is_empty() {
            all.last_transport = r.last_transport;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    // A killer still waiting when the load is over never fires: the load ended first.
    let killed_at = match killer {
        Some(k) if k.is_finished() => k.await.map_err(|e| e.to_string())?,
        Some(k) => {
            k.abort();
            None
        }
        None => None,
    };
    all.latencies.sort_by(f64::total_cmp);
    write_keys(o.keys_out.as_deref(), &all.done_keys)?;
    let total = o.clients * o.calls;
    let ok = all.done_keys.len() == total
        && all.gave_up.is_empty()
        && (o.kill_pid.is_none() || killed_at.is_some());
    #[allow(clippy::cast_precision_loss)]
    let rps = all.latencies.len() as f64 / secs;
    Ok(
        json!({"scenario": "load", "ok": ok, "calls": total, "answered": all.latencies.len(),
              "codes": all.codes, "client_retries": all.retries, "gave_up": all.gave_up.len(),
              "last_transport_error": all.last_transport, "killed_at": killed_at,
              "seconds": secs, "req_per_s": rps,
              "p50_ms": percentile(&all.latencies, 0.5), "p99_ms": percentile(&all.latencies, 0.99)}),
    )
}

fn write_keys(path: Option<&str>, keys: &[String]) -> Result<(), String> {
    if let Some(p) = path {
        std::fs::write(p, keys.join("\n") + "\n").map_err(|e| format!("{p}: {e}"))?;
    }
    Ok(())
}

async fn outage(o: &Opts) -> Result<Value, String> {
    let started = Instant::now();
    let until = started + Duration::from_secs(o.seconds);
    let mut tasks = Vec::new();
    for client in 0..o.clients {
        let c = Client::new(o.token.clone())?;
        let (lb, tag) = (o.lb.clone(), o.tag.clone());
        tasks.push(tokio::spawn(async move {
            let mut seen: Vec<(u64, String, String)> = Vec::new();
            let mut i = 0;
            while Instant::now() < until {
                let key = format!("{tag}-o{client}-{i}");
                i += 1;
                let a = c.call(&lb, "track_article_view", view_args(&key)).await;
                seen.push((started.elapsed().as_secs(), a.code(), key));
                if matches!(a, Answer::Transport(_)) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            seen
        }));
    }
    let mut by_second: BTreeMap<u64, BTreeMap<String, usize>> = BTreeMap::new();
    let (mut done, mut unavailable) = (Vec::new(), Vec::new());
    for t in tasks {
        for (sec, code, key) in t.await.map_err(|e| e.to_string())? {
            *by_second
                .entry(sec)
                .or_default()
                .entry(code.clone())
                .or_default() += 1;
            match code.as_str() {
                "success" => done.push(key),
                "DEPENDENCY_UNAVAILABLE" => unavailable.push(key),
                _ => {}
            }
        }
    }
    write_keys(o.keys_out.as_deref(), &done)?;
    write_keys(
        o.keys_out
            .as_ref()
            .map(|p| format!("{p}.unavailable"))
            .as_deref(),
        &unavailable,
    )?;
    let last = by_second.keys().max().copied().unwrap_or(0);
    let resumed = by_second
        .get(&last)
        .or_else(|| by_second.get(&last.saturating_sub(1)))
        .is_some_and(|c| c.get("success").copied().unwrap_or(0) > 0);
    let ok = !unavailable.is_empty() && resumed;
    Ok(
        json!({"scenario": "outage", "ok": ok, "success": done.len(),
              "dependency_unavailable": unavailable.len(), "resumed": resumed,
              "by_second": by_second}),
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    // reqwest is built without a default TLS provider: the workspace's is ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let o = match parse_opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("replicas_check: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let out = match o.scenario.as_str() {
        "idem" => idem(&o).await,
        "approval" => approval(&o).await,
        "rate" => rate(&o).await,
        "load" => load(&o).await,
        "outage" => outage(&o).await,
        other => Err(format!("unknown scenario {other}")),
    };
    match out {
        Ok(v) => {
            println!("{v}");
            if v["ok"] == true {
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("replicas_check: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
