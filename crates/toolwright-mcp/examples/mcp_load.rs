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
//! every server; responses may be JSON or SSE. Responses are parsed only as far as the check
//! needs (ids, `isError`, the number of tools, `nextCursor`), so the client's own parsing adds
//! little to the latency it reports. In `list` mode one request is a whole tool list: the client
//! follows `nextCursor` until the last page, and checks it saw `--expect-tools` tools.
//!
//! `--server-pid PID` reads the server's CPU time around the timed part and reports
//! `server_cpu_us_per_req`: the run time of its threads in nanoseconds (`/proc/PID/task/*/schedstat`)
//! when no thread ended meanwhile, else user+system time in clock ticks (`/proc/PID/stat`,
//! `--clk-tck`, default 100 ticks/s: 10 ms steps). `cpu_source` says which.

use serde::Deserialize;
use serde::de::IgnoredAny;
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
    server_pid: Option<u32>,
    clk_tck: f64,
    expect_tools: Option<usize>,
}

/// The parts of a JSON-RPC response the checks look at.
#[derive(Deserialize)]
struct RpcMessage {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    result: Option<RpcResult>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct RpcResult {
    #[serde(default)]
    tools: Option<Vec<IgnoredAny>>,
    #[serde(default, rename = "isError")]
    is_error: Option<bool>,
    #[serde(default, rename = "nextCursor")]
    next_cursor: Option<String>,
}

/// User + system CPU time of `pid` in clock ticks.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line: 12 and 13 after the name.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Run time in nanoseconds of each thread of `pid` (`/proc/PID/task/TID/schedstat`, first field).
fn thread_ns(pid: u32) -> Option<std::collections::HashMap<u64, u64>> {
    let mut out = std::collections::HashMap::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let path = entry.ok()?.path();
        let tid: u64 = path.file_name()?.to_str()?.parse().ok()?;
        let text = std::fs::read_to_string(path.join("schedstat")).ok()?;
        out.insert(tid, text.split_whitespace().next()?.parse().ok()?);
    }
    Some(out)
}

/// The server's CPU readings at one moment: per-thread nanoseconds and process ticks.
struct CpuReading {
    threads: Option<std::collections::HashMap<u64, u64>>,
    ticks: Option<u64>,
}

impl CpuReading {
    fn take(pid: u32) -> CpuReading {
        CpuReading {
            threads: thread_ns(pid),
            ticks: cpu_ticks(pid),
        }
    }

    /// CPU microseconds from `self` to `later`, and where they come from: the threads' run
    /// times when every thread seen before is still there (an ended thread's time would be
    /// lost), else the process ticks.
    fn micros_until(&self, later: &CpuReading, clk_tck: f64) -> Option<(f64, &'static str)> {
        if let (Some(a), Some(b)) = (&self.threads, &later.threads)
            && a.keys().all(|tid| b.contains_key(tid))
        {
            let before: u64 = a.values().sum();
            let after: u64 = b.values().sum();
            return Some((after.saturating_sub(before) as f64 / 1000.0, "schedstat"));
        }
        let (a, b) = (self.ticks?, later.ticks?);
        Some((b.saturating_sub(a) as f64 * 1e6 / clk_tck, "ticks"))
    }
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
        server_pid: None,
        clk_tck: 100.0,
        expect_tools: None,
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
            "--server-pid" => {
                o.server_pid = Some(val()?.parse().map_err(|e| format!("--server-pid: {e}"))?)
            }
            "--clk-tck" => o.clk_tck = val()?.parse().map_err(|e| format!("--clk-tck: {e}"))?,
            "--expect-tools" => {
                o.expect_tools = Some(val()?.parse().map_err(|e| format!("--expect-tools: {e}"))?)
            }
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
    async fn post(
        &mut self,
        body: &Value,
        want_id: Option<u64>,
    ) -> Result<Option<RpcMessage>, String> {
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
        let bytes = resp.bytes().await.map_err(|e| e.to_string())?;
        let snippet = || String::from_utf8_lossy(bytes.get(..200).unwrap_or(&bytes)).into_owned();
        if !status.is_success() {
            return Err(format!("HTTP {status}: {}", snippet()));
        }
        let Some(id) = want_id else { return Ok(None) };
        let is_id = |m: &RpcMessage| m.id.as_ref().and_then(Value::as_u64) == Some(id);
        // JSON body, or SSE events whose data lines carry JSON-RPC messages.
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first == Some(&b'{') {
            let m: RpcMessage = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
            return if is_id(&m) {
                Ok(Some(m))
            } else {
                Err(format!("no response with id {id} in: {}", snippet()))
            };
        }
        let text = std::str::from_utf8(&bytes).map_err(|e| e.to_string())?;
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<RpcMessage>(d.trim()).ok())
            .find(|m| is_id(m))
            .map(Some)
            .ok_or_else(|| format!("no response with id {id} in: {}", snippet()))
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<RpcResult, String> {
        self.next_id += 1;
        let id = self.next_id;
        let msg = self
            .post(
                &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
                Some(id),
            )
            .await?
            .ok_or("empty response")?;
        if let Some(e) = msg.error {
            return Err(format!("JSON-RPC error: {e}"));
        }
        msg.result
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
            // The whole list: page on with nextCursor until the server says it is complete.
            let mut cursor: Option<String> = None;
            let mut seen = 0usize;
            for _ in 0..100_000 {
                let params = match &cursor {
                    Some(c) => json!({"cursor": c}),
                    None => json!({}),
                };
                let r = self.request("tools/list", params).await?;
                seen += r.tools.ok_or("tools/list without tools")?.len();
                match r.next_cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            if let Some(n) = opts.expect_tools
                && seen != n
            {
                return Err(format!("tools/list gave {seen} tools, expected {n}"));
            }
        } else {
            let r = self
                .request(
                    "tools/call",
                    json!({"name": opts.tool, "arguments": opts.args}),
                )
                .await?;
            if r.is_error == Some(true) {
                return Err("tools/call answered isError: true".into());
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
    let cpu_before = opts.server_pid.map(CpuReading::take);
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
    let cpu_after = opts.server_pid.map(CpuReading::take);
    all.sort_by(f64::total_cmp);
    let done = all.len() as f64;
    let cpu = match (&cpu_before, &cpu_after) {
        (Some(a), Some(b)) if !all.is_empty() => a.micros_until(b, opts.clk_tck),
        _ => None,
    };
    let server_cpu_us = cpu.map_or(Value::Null, |(us, _)| {
        Value::from((us / done * 10.0).round() / 10.0)
    });
    let cpu_source = cpu.map_or(Value::Null, |(_, source)| Value::from(source));
    Ok(json!({
        "label": opts.label,
        "server_cpu_us_per_req": server_cpu_us,
        "cpu_source": cpu_source,
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
