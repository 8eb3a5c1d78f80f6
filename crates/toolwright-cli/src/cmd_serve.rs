//! `toolwright serve` (an MCP server over stdio or Streamable HTTP) and the `--mcp` import of
//! MCP servers' tools used by every command that builds a runtime.

use crate::{Global, load_definitions, usage_error};
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use toolwright::Registry;
use toolwright_mcp::{ClientOptions, McpServer, ServerOptions};

/// `serve` arguments.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Serve MCP over stdin/stdout (newline-delimited JSON-RPC).
    #[arg(long, conflicts_with = "http", required_unless_present = "http")]
    pub stdio: bool,
    /// Serve MCP over Streamable HTTP on ADDR (loopback, e.g. 127.0.0.1:8080; port 0 picks one).
    /// The endpoint is /mcp; the URL is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Also expose the tools of a definitions file (validated against their schemas, not executed).
    #[arg(long, value_name = "DEFS.json")]
    pub functions: Option<PathBuf>,
    /// A catalog (YAML, as `toolwright catalog export` writes it) whose entries set the policies
    /// of the served tools of the same name: side effects, confirmation, timeouts, retries,
    /// fallback, `rate_limit`. The tools keep their own descriptions, schemas and bodies.
    #[arg(long, value_name = "CATALOG.yaml")]
    pub catalog: Option<PathBuf>,
    /// Advertise every tool's input schema with its local `$ref`s inlined and `$defs` dropped,
    /// for clients that do not follow references. Validation accepts the same arguments; a tool
    /// whose references are recursive keeps them (a warning names it).
    #[arg(long)]
    pub inline_refs: bool,
    /// Require `Authorization: Bearer TOKEN` on every HTTP request (401 without it).
    #[arg(
        long,
        env = "TOOLWRIGHT_MCP_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub token: Option<String>,
    /// Run tools that need confirmation without asking. Only for trusted setups: by default
    /// they answer with a preview (or ask the person through MCP elicitation when the client can).
    #[arg(long)]
    pub approve_all: bool,
    /// Another Host header value to accept (DNS-rebinding allow-list; loopback names always). Repeatable.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Largest accepted HTTP request body, in bytes.
    #[arg(long, default_value_t = 4 * 1024 * 1024, value_name = "BYTES")]
    pub max_body_bytes: usize,
    /// HTTP without MCP sessions: every POST stands alone (no Mcp-Session-Id, no elicitation or
    /// sampling, no per-session log level). Faster per request; the default keeps sessions.
    #[arg(long, requires = "http")]
    pub stateless: bool,
    /// With --stateless: answer plain request/response calls with one application/json body
    /// instead of an SSE stream (SSE is still used when a tool sends progress or logs first).
    #[arg(long, requires = "stateless")]
    pub json_response: bool,
    /// Threads of the HTTP server's own async runtime; 1 runs it on one thread (no cross-thread
    /// wake-ups per request: the lowest latency and CPU per call). 0 shares the process runtime.
    #[arg(long, default_value_t = 1, value_name = "N", requires = "http")]
    pub workers: usize,
    /// At most N tools per tools/list answer; clients page on with nextCursor. Default: all
    /// tools in one answer.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub page_size: Option<u64>,
    /// Also expose the `find_tools` meta-tool: a client describes a task and gets the best
    /// tools, ranked by the same router as `toolwright route` (hybrid with the local embedder).
    #[arg(long)]
    pub find_tools: bool,
    /// Most MCP sessions open at once over HTTP; a client that would open one more gets 503
    /// with a JSON-RPC error saying so.
    #[arg(long, default_value_t = 1000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions: u64,
    /// An HTTP MCP session with no request for this many seconds is closed.
    #[arg(long, default_value_t = 600, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub session_idle_secs: u64,
    /// Most HTTP connections open at once; at the cap the oldest idle connection (one that never
    /// authenticated first) is closed to make room, and only when all are busy is one refused.
    #[arg(long, default_value_t = 1024, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: u64,
    /// Seconds an HTTP client has to send a request's headers (also closes idle keep-alive
    /// connections).
    #[arg(long, default_value_t = 10, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,
    /// Seconds an HTTP client has to send a request's body (408 after).
    #[arg(long, default_value_t = 30, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout_secs: u64,
    /// Enables GET /approvals and POST /approvals/ID/approve|deny for requests with this bearer
    /// token (it must differ from --token, which the model's client holds).
    #[arg(
        long,
        env = "TOOLWRIGHT_ADMIN_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN",
        requires = "http"
    )]
    pub admin_token: Option<String>,
    /// On SIGTERM, keep serving this many seconds with /readyz answering 503, so the load
    /// balancer stops sending new clients before the server stops taking requests.
    #[arg(long, default_value_t = 0, value_name = "SECS", requires = "http")]
    pub drain_grace_secs: u64,
    /// On SIGTERM, after the grace period, calls in flight get this many seconds to finish;
    /// calls still running then are cut (never reported done).
    #[arg(long, default_value_t = 10, value_name = "SECS", requires = "http")]
    pub drain_secs: u64,
}

/// Installs the Prometheus recorder behind the `metrics` facade (once per process) and returns
/// what renders `/metrics`; `None` when another recorder is installed already.
fn prometheus() -> Option<toolwright_mcp::MetricsRender> {
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
    static HANDLE: OnceLock<Option<metrics_exporter_prometheus::PrometheusHandle>> =
        OnceLock::new();
    let handle = HANDLE.get_or_init(|| {
        const BUCKETS: [f64; 15] = [
            0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
            30.0,
        ];
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &BUCKETS)
            .ok()?
            .build_recorder();
        let handle = recorder.handle();
        metrics::set_global_recorder(recorder).ok()?;
        let upkeep = handle.clone();
        // Histograms are folded into their buckets on upkeep; render also runs it.
        std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(5));
                    upkeep.run_upkeep();
                }
            })
            .ok()?;
        Some(handle)
    });
    let handle = handle.clone()?;
    Some(Arc::new(move || handle.render()))
}

/// Imports the tools of the `--mcp` servers into `registry` (names prefixed with
/// `--mcp-prefix`, calls bounded by `--mcp-timeout`). The imported tools keep their connections
/// open for as long as the registry holds them.
///
/// # Errors
/// A message for the user: a server that cannot be reached or a tool name clash.
pub async fn import_mcp(global: &Global, registry: &Arc<Registry>) -> Result<(), String> {
    import_mcp_with(global, registry, None).await
}

/// [`import_mcp`], calling `on_change` whenever an MCP server's tool list changed.
async fn import_mcp_with(
    global: &Global,
    registry: &Arc<Registry>,
    on_change: Option<toolwright_mcp::ToolsChangedHook>,
) -> Result<(), String> {
    if global.mcp.is_empty() {
        return Ok(());
    }
    let prefixes = &global.mcp_prefix;
    if prefixes.len() > 1 && prefixes.len() != global.mcp.len() {
        return Err(format!(
            "--mcp-prefix given {} times for {} --mcp servers: give it once (for every server) \
             or once per --mcp, in the same order",
            prefixes.len(),
            global.mcp.len()
        ));
    }
    for (i, source) in global.mcp.iter().enumerate() {
        let prefix = prefixes.get(i).or(prefixes.first()).cloned();
        let options = ClientOptions {
            prefix,
            timeout: Duration::from_millis(global.mcp_timeout_ms.max(1)),
            connect_timeout: Duration::from_millis(global.mcp_connect_timeout_ms.max(1)),
            on_tools_changed: on_change.clone(),
            ..ClientOptions::default()
        };
        toolwright_mcp::import_all(std::slice::from_ref(source), registry, &options)
            .await
            .map_err(|e| match e {
                toolwright_mcp::McpError::Transport(m) if m.contains("handshake") => format!(
                    "MCP transport error: {m} (--mcp-connect-timeout-ms raises the deadline: a \
                     first `npx -y` run may still be installing the package)"
                ),
                e => e.to_string(),
            })?;
    }
    Ok(())
}

fn registry_for(args: &ServeArgs, global: &Global) -> Result<Arc<Registry>, String> {
    let registry = crate::base_registry(global, args.functions.is_some())?;
    if let Some(path) = &args.functions {
        for spec in load_definitions(path)? {
            let name = spec.name.clone();
            registry
                .register(toolwright::DefinitionOnly::new(spec))
                .map_err(|e| format!("{}: tool `{name}`: {e}", path.display()))?;
        }
    }
    Ok(registry)
}

/// Applies `--catalog` to the registry (after the `--mcp` imports, so imported tools can be
/// governed too).
fn apply_catalog(args: &ServeArgs, registry: &Registry) -> Result<(), String> {
    let Some(path) = &args.catalog else {
        return Ok(());
    };
    let policies = toolwright_catalog::catalog::load(path).map_err(|e| e.to_string())?;
    toolwright_catalog::apply_policies(registry, &policies)
        .map(drop)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Completes on SIGINT or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Runs `serve`.
pub async fn run(args: ServeArgs, global: &Global) -> i32 {
    let registry = match registry_for(&args, global) {
        Ok(r) => r,
        Err(e) => return usage_error(&e),
    };
    // When an imported server's tool list changes, our own clients are told in turn.
    let served: Arc<OnceLock<McpServer>> = Arc::new(OnceLock::new());
    let cell = served.clone();
    let hook: toolwright_mcp::ToolsChangedHook = Arc::new(move || {
        if let Some(server) = cell.get().cloned() {
            tokio::spawn(async move {
                server.notify_tool_list_changed().await;
            });
        }
    });
    if let Err(e) = import_mcp_with(global, &registry, Some(hook)).await {
        return usage_error(&e);
    }
    if let Err(e) = apply_catalog(&args, &registry) {
        return usage_error(&e);
    }
    if args.inline_refs {
        match toolwright_catalog::inline_schema_refs(&registry) {
            Ok(notes) => {
                for n in notes {
                    eprintln!("toolwright: warning: {n}");
                }
            }
            Err(e) => return usage_error(&e.to_string()),
        }
    }
    if args.find_tools {
        let specs = registry.specs();
        let setup = match toolwright_local::routing::build_router(specs, None, &mut |_, _| {}) {
            Ok(s) => s,
            Err(e) => return usage_error(&e),
        };
        if let Some(hint) = &setup.hint {
            eprintln!("toolwright: {hint}");
        }
        let tool = toolwright_catalog::find_tools(Arc::new(setup.router));
        if let Err(e) = registry.register(tool) {
            return usage_error(&format!("cannot add find_tools: {e}"));
        }
    }
    let store = match crate::runtime_cli::store(global) {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    // Over HTTP the calls' metrics also go to the Prometheus recorder behind /metrics.
    let runtime = crate::runtime_cli::track(
        toolwright_runtime::Runtime::builder(registry)
            .store(store)
            .export_metrics(args.http.is_some())
            .build(),
    );
    let options = ServerOptions {
        approve_all: args.approve_all,
        page_size: args
            .page_size
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        ..ServerOptions::default()
    };
    let server = McpServer::new(runtime, options);
    let _ = served.set(server.clone());
    if args.stdio {
        return match toolwright_mcp::serve_stdio(server).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("toolwright: {e}");
                1
            }
        };
    }
    let Some(addr) = args.http.as_deref() else {
        return usage_error("give --stdio or --http ADDR");
    };
    let addr: SocketAddr = match addr.parse() {
        Ok(a) => a,
        Err(e) => {
            return usage_error(&format!(
                "--http {addr}: {e} (expected e.g. 127.0.0.1:8080)"
            ));
        }
    };
    if args.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return usage_error(
            "--token (or TOOLWRIGHT_MCP_TOKEN) is empty: give a secret, or leave it out to serve \
             loopback without a token",
        );
    }
    let mut http = toolwright_mcp::HttpOptions::new(addr);
    http.token = args.token.clone();
    http.sessions.max = usize::try_from(args.max_sessions).unwrap_or(usize::MAX);
    http.sessions.idle = Duration::from_secs(args.session_idle_secs);
    http.connections.max = usize::try_from(args.max_connections).unwrap_or(usize::MAX);
    http.connections.header_timeout = Duration::from_secs(args.header_timeout_secs);
    http.body_timeout = Duration::from_secs(args.body_timeout_secs);
    http.allowed_hosts.extend(args.allow_hosts.iter().cloned());
    http.max_body_bytes = args.max_body_bytes;
    http.stateless = args.stateless;
    http.json_response = args.json_response;
    http.admin_token = args.admin_token.clone().filter(|t| !t.trim().is_empty());
    http.metrics = prometheus();
    http.drain_grace = Duration::from_secs(args.drain_grace_secs);
    http.connections.drain = Duration::from_secs(args.drain_secs);
    if args.workers == 0 {
        return serve_http(server, http).await;
    }
    // The HTTP server on its own runtime: with one thread, a request's tasks (connection,
    // session, handler) never wake another thread.
    let workers = args.workers;
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("mcp-http".into())
        .spawn(move || {
            let rt = if workers == 1 {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
            } else {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(workers)
                    .enable_all()
                    .build()
            };
            let code = match rt {
                Ok(rt) => {
                    let code = rt.block_on(serve_http(server, http));
                    // Hung blocking tool bodies must not hold the process at shutdown.
                    rt.shutdown_timeout(Duration::from_millis(200));
                    code
                }
                Err(e) => {
                    eprintln!("toolwright: cannot start the HTTP runtime: {e}");
                    1
                }
            };
            let _ = done_tx.send(code);
        });
    if let Err(e) = spawned {
        eprintln!("toolwright: cannot start the HTTP server thread: {e}");
        return 1;
    }
    done_rx.await.unwrap_or(1)
}

/// Binds and serves HTTP until SIGINT or SIGTERM; the exit code.
async fn serve_http(server: McpServer, http: toolwright_mcp::HttpOptions) -> i32 {
    let bound = match toolwright_mcp::bind_http(server, http).await {
        Ok(b) => b,
        Err(e) => return usage_error(&e.to_string()),
    };
    eprintln!("toolwright MCP server on {}", bound.url());
    match bound.run(shutdown_signal()).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("toolwright: {e}");
            1
        }
    }
}
