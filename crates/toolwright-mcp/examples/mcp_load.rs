//! A bounded load generator for MCP servers over Streamable HTTP (loopback): N concurrent
//! clients, each with its own MCP session, send `tools/call` (or `tools/list`) requests until a
//! fixed total is done or a time cap passes, and the run prints one JSON line: requests/s and
//! latency percentiles. Used by `bench/mcp_compare.sh`.
//!
//! ```text
//! cargo run --release -p toolwright-mcp --features http-client --example mcp_load -- \
//!     --url http://127.0.0.1:8080/mcp --tool convert_currency \
//!     --args '{"amount":100,"from_currency":"USD","to_currency":"EUR"}' \
//!     --concurrency 16 --requests 4000 --max-seconds 60 --label toolwright
//! ```
//!
//! It speaks raw JSON-RPC over HTTP (reqwest, keep-alive), so the client costs the same for
//! every server; responses may be JSON or SSE.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
struct Opts {
    url: String,
    mode: String,
    tool: String,
    args: Value,
    concurrency: usize,
    requests: u64,
    warmup: u64,
    max_seconds: u64,
    label: String,
    token: Option<String>,
}

fn parse_opts() -> Result<Opts, String> {
    let mut o = Opts {
        url: String::new(),
        mode: "call".into(),
        tool: "convert_currency".into(),
        args: json!({"amount": 100, "from_currency": "USD", "to_currency": "EUR"}),
        concurrency: 1,
        requests: 2000,
        warmup: 20,
        max_seconds: 60,
        label: "server".into(),
        token: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => o.url = val()?,
            "--mode" => o.mode = val()?,
            "--tool" => o.tool = val()?,
            "--args" => {
                o.args = serde_json::from_str(&val()?).map_err(|e| format!("--args: {e}"))?
            }
            "--concurrency" => {
                o.concurrency = val()?.parse().map_err(|e| format!("--concurrency: {e}"))?
            }
            "--requests" => o.requests = val()?.parse().map_err(|e| format!("--requests: {e}"))?,
            "--warmup" => o.warmup = val()?.parse().map_err(|e| format!("--warmup: {e}"))?,
            "--max-seconds" => {
                o.max_seconds = val()?.parse().map_err(|e| format!("--max-seconds: {e}"))?
            }
            "--label" => o.label = val()?,
            "--token" => o.token = Some(val()?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if o.url.is_empty() {
        return Err("--url is required".into());
    }
    if !(o.url.starts_with("http://127.") || o.url.starts_with("http://localhost")) {
        return Err("only loopback URLs".into());
    }
    if o.mode != "call" && o.mode != "list" {
        return Err("--mode is call or list".into());
    }
    o.concurrency = o.concurrency.clamp(1, 256);
    Ok(o)
}

struct Session {
    http: reqwest::Client,
    url: String,
    sid: Option<String>,
    token: Option<String>,
    next_id: u64,
}

impl Session {
    async fn post(&mut self, body: &Value, want_id: Option<u64>) -> Result<Option<Value>, String> {
        let mut req = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_string());
        if let Some(s) = &self.sid {
            req = req.header("mcp-session-id", s);
        }
        if let Some(t) = &self.token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let resp = req.send().await.map_err(|e| e.to_string())?;
        let status = resp.status();
        if let Some(s) = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            self.sid = Some(s.to_string());
        }
        let text = resp.text().await.map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!(
                "HTTP {status}: {}",
                text.chars().take(200).collect::<String>()
            ));
        }
        let Some(id) = want_id else { return Ok(None) };
        // JSON body, or SSE events whose data lines carry JSON-RPC messages.
        let candidates: Vec<Value> = if text.trim_start().starts_with('{') {
            serde_json::from_str(&text).into_iter().collect()
        } else {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                .collect()
        };
        candidates
            .into_iter()
            .find(|m| m.get("id").and_then(Value::as_u64) == Some(id))
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "no response with id {id} in: {}",
                    text.chars().take(200).collect::<String>()
                )
            })
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let msg = self
            .post(
                &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
                Some(id),
            )
            .await?
            .ok_or("empty response")?;
        if let Some(e) = msg.get("error") {
            return Err(format!("JSON-RPC error: {e}"));
        }
        msg.get("result")
            .cloned()
            .ok_or_else(|| "response without result".to_string())
    }

    async fn open(http: reqwest::Client, opts: &Opts) -> Result<Session, String> {
        let mut s = Session {
            http,
            url: opts.url.clone(),
            sid: None,
            token: opts.token.clone(),
            next_id: 0,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "mcp_load", "version": "1"}}),
        )
        .await?;
        s.post(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            None,
        )
        .await?;
        Ok(s)
    }

    async fn one(&mut self, opts: &Opts) -> Result<(), String> {
        if opts.mode == "list" {
            let r = self.request("tools/list", json!({})).await?;
            if r.get("tools").and_then(Value::as_array).is_none() {
                return Err("tools/list without tools".into());
            }
        } else {
            let r = self
                .request(
                    "tools/call",
                    json!({"name": opts.tool, "arguments": opts.args}),
                )
                .await?;
            if r.get("isError").and_then(Value::as_bool) == Some(true) {
                return Err(format!("isError: {r}"));
            }
        }
        Ok(())
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted
        .get(rank.min(sorted.len() - 1))
        .copied()
        .unwrap_or(f64::NAN)
}

async fn run(opts: Opts) -> Result<Value, String> {
    // reqwest is built without a default TLS provider (ring, never aws-lc): install one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(opts.concurrency * 2)
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    // Sessions first (not timed), then a short warm-up per session.
    let mut sessions = Vec::new();
    for _ in 0..opts.concurrency {
        let mut s = Session::open(http.clone(), &opts).await?;
        for _ in 0..opts.warmup {
            s.one(&opts).await?;
        }
        sessions.push(s);
    }
    let left = Arc::new(AtomicU64::new(opts.requests));
    let errors = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(opts.max_seconds);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for mut s in sessions {
        let left = left.clone();
        let errors = errors.clone();
        let opts = opts.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut first_error = None;
            while Instant::now() < deadline
                && left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
            {
                let t = Instant::now();
                match s.one(&opts).await {
                    Ok(()) => lat.push(t.elapsed().as_secs_f64() * 1000.0),
                    Err(e) => {
                        errors.fetch_add(1, Ordering::SeqCst);
                        first_error.get_or_insert(e);
                    }
                }
            }
            (lat, first_error)
        }));
    }
    let mut all = Vec::new();
    let mut first_error = None;
    for t in tasks {
        let (lat, err) = t.await.map_err(|e| e.to_string())?;
        all.extend(lat);
        if first_error.is_none() {
            first_error = err;
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort_by(f64::total_cmp);
    let done = all.len() as f64;
    Ok(json!({
        "label": opts.label,
        "mode": opts.mode,
        "concurrency": opts.concurrency,
        "requests": all.len(),
        "errors": errors.load(Ordering::SeqCst),
        "first_error": first_error,
        "seconds": (elapsed * 1000.0).round() / 1000.0,
        "rps": ((done / elapsed) * 10.0).round() / 10.0,
        "p50_ms": (percentile(&all, 50.0) * 1000.0).round() / 1000.0,
        "p99_ms": (percentile(&all, 99.0) * 1000.0).round() / 1000.0,
        "mean_ms": if all.is_empty() { f64::NAN } else { ((all.iter().sum::<f64>() / done) * 1000.0).round() / 1000.0 },
    }))
}

fn main() -> std::process::ExitCode {
    let opts = match parse_opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mcp_load: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    // One thread: the generator should not take the machine from the server it measures.
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp_load: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match rt.block_on(run(opts)) {
        Ok(v) => {
            println!("{v}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mcp_load: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
