//! The floor of `bench/mcp_compare.sh`: a bare rmcp server exposing the same `convert_currency`
//! tool as toolwright's demo (same rates table, bounds and enums, the same conversion data in the
//! result), written the way rmcp's own documentation shows: `#[tool_router]` / `#[tool]` /
//! `#[tool_handler(router = self.tool_router)]`, arguments parsed by serde through
//! `Parameters<T>` and nothing else (no schema validation, no policies, no envelope), served by
//! rmcp's `StreamableHttpService`.
//!
//! ```text
//! cargo run --release -p toolwright-mcp --features http-server --example rmcp_floor -- \
//!     --http 127.0.0.1:0 [--stateless --json-response] [--workers 1]
//! cargo run --release -p toolwright-mcp --features http-server --example rmcp_floor -- --stdio
//! ```
//!
//! The transport settings follow `toolwright serve --http` for each benchmark pairing: sessions
//! (rmcp's `LocalSessionManager`) with SSE answers by default; `--stateless` serves without
//! sessions (`NeverSessionManager`) and `--json-response` then answers with plain JSON. Same
//! Host/Origin allow-lists and body limit, and the same runtime (`--workers 1`, toolwright's
//! default: one current-thread runtime; `N > 1` a multi-thread runtime), TCP_NODELAY like
//! toolwright's accept loop. It is served with `axum::serve` (no connection cap, header or body
//! timeouts, bearer-token guard: that is part of what toolwright adds). The URL is printed on
//! stderr: `rmcp floor MCP server on http://…/mcp`. `--stdio` serves the same tool over
//! stdin/stdout instead (rmcp's `stdio()` transport, as `toolwright serve --stdio`), until stdin
//! closes; `bench/mcp_callgrind.sh` drives it that way.

use axum::serve::ListenerExt;
use rmcp::handler::server::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

/// ISO 4217 currency code (the demo's enum).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[allow(clippy::upper_case_acronyms)]
enum Currency {
    USD,
    EUR,
    GBP,
    JPY,
    CHF,
    CAD,
    AUD,
    CNY,
    INR,
    SEK,
    NOK,
    BRL,
    MXN,
    KRW,
    SGD,
}

impl Currency {
    fn code(self) -> &'static str {
        match self {
            Currency::USD => "USD",
            Currency::EUR => "EUR",
            Currency::GBP => "GBP",
            Currency::JPY => "JPY",
            Currency::CHF => "CHF",
            Currency::CAD => "CAD",
            Currency::AUD => "AUD",
            Currency::CNY => "CNY",
            Currency::INR => "INR",
            Currency::SEK => "SEK",
            Currency::NOK => "NOK",
            Currency::BRL => "BRL",
            Currency::MXN => "MXN",
            Currency::KRW => "KRW",
            Currency::SGD => "SGD",
        }
    }
}

/// The tool's arguments. The bounds are advertised in the schema; rmcp does not check them.
#[derive(Debug, Deserialize, JsonSchema)]
struct ConvertArgs {
    /// Amount to convert, e.g. 100 or 12.5
    #[schemars(range(min = 0.0, max = 1.0e12))]
    amount: f64,
    /// ISO 4217 code of the source currency
    from_currency: Currency,
    /// ISO 4217 code of the target currency
    to_currency: Currency,
}

/// The result: the same fields as the demo's `Conversion`.
#[derive(Debug, Serialize, JsonSchema)]
struct Conversion {
    amount: f64,
    from_currency: Currency,
    to_currency: Currency,
    rate: f64,
    converted: f64,
    rates_date: String,
    source: String,
}

/// The demo's rates table (`crates/toolwright-demo/data/rates.json`).
#[derive(Debug, Deserialize)]
struct RatesTable {
    date: String,
    source: String,
    rates: HashMap<String, f64>,
}

#[derive(Clone)]
struct Floor {
    table: Arc<RatesTable>,
    tool_router: ToolRouter<Floor>,
}

#[tool_router]
impl Floor {
    fn new(table: Arc<RatesTable>) -> Self {
        Floor {
            table,
            tool_router: Self::tool_router(),
        }
    }

    /// Convert an amount between currencies using the dated rates table.
    #[tool(
        description = "Convert an amount between currencies using the dated rates table.\n\nUse this tool when the user asks to convert money or compare prices across currencies. Do NOT use it for stock prices or crypto. The answer carries the date of the rates; say it."
    )]
    async fn convert_currency(
        &self,
        Parameters(args): Parameters<ConvertArgs>,
    ) -> Result<Json<Conversion>, ErrorData> {
        let t = &self.table;
        let rate_of = |c: Currency| {
            t.rates.get(c.code()).copied().ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("No rate for {} in the table of {}.", c.code(), t.date),
                    None,
                )
            })
        };
        let rate = rate_of(args.to_currency)? / rate_of(args.from_currency)?;
        Ok(Json(Conversion {
            amount: args.amount,
            from_currency: args.from_currency,
            to_currency: args.to_currency,
            rate: (rate * 1e6).round() / 1e6,
            converted: (args.amount * rate * 100.0).round() / 100.0,
            rates_date: t.date.clone(),
            source: t.source.clone(),
        }))
    }
}

// The router built once per session and kept (rmcp's default, `Self::tool_router()`, builds it
// again for every request).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Floor {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Command line: `--http ADDR`, `--stateless`, `--json-response`, `--workers N`, `--stdio`.
#[derive(Debug)]
struct Opts {
    addr: SocketAddr,
    stdio: bool,
    stateless: bool,
    json_response: bool,
    workers: usize,
}

fn parse_opts() -> Result<Opts, String> {
    let mut o = Opts {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        stdio: false,
        stateless: false,
        json_response: false,
        workers: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--http" => {
                let v = it.next().ok_or("--http needs ADDR")?;
                o.addr = v.parse().map_err(|e| format!("--http {v}: {e}"))?;
            }
            "--stdio" => o.stdio = true,
            "--stateless" => o.stateless = true,
            "--json-response" => o.json_response = true,
            "--workers" => {
                let v = it.next().ok_or("--workers needs N")?;
                o.workers = v.parse().map_err(|e| format!("--workers {v}: {e}"))?;
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if !o.addr.ip().is_loopback() {
        return Err("the floor server serves loopback only".into());
    }
    Ok(o)
}

/// Serves over stdin/stdout until the client closes stdin.
async fn serve_stdio(table: Arc<RatesTable>) -> Result<(), String> {
    let running = Floor::new(table)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    running.waiting().await.map(drop).map_err(|e| e.to_string())
}

async fn serve(opts: Opts, table: Arc<RatesTable>) -> Result<(), String> {
    if opts.stdio {
        return serve_stdio(table).await;
    }
    // As `toolwright_mcp::bind_http` configures rmcp for loopback, from the same defaults
    // (allow-lists, body limit), and the same modes.
    let defaults = toolwright_mcp::HttpOptions::new(opts.addr);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(defaults.allowed_hosts)
        .with_allowed_origins(defaults.allowed_origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(defaults.max_body_bytes)
        .with_legacy_session_mode(!opts.stateless)
        .with_json_response(opts.stateless && opts.json_response);
    let make = move || Ok(Floor::new(table.clone()));
    let router = if opts.stateless {
        let service =
            StreamableHttpService::new(make, Arc::new(NeverSessionManager::default()), config);
        axum::Router::new().route_service("/mcp", service)
    } else {
        let service =
            StreamableHttpService::new(make, Arc::new(LocalSessionManager::default()), config);
        axum::Router::new().route_service("/mcp", service)
    };
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|e| format!("cannot bind {}: {e}", opts.addr))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("rmcp floor MCP server on http://{local}/mcp");
    // TCP_NODELAY, as toolwright's accept loop sets it: without it an SSE answer (written in
    // pieces) waits on delayed ACKs, ~40 ms a request.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            eprintln!("rmcp_floor: TCP_NODELAY: {e}");
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}

fn main() -> std::process::ExitCode {
    let run = || -> Result<(), String> {
        let opts = parse_opts()?;
        let table: RatesTable =
            serde_json::from_str(include_str!("../../toolwright-demo/data/rates.json"))
                .map_err(|e| format!("the rates table does not parse: {e}"))?;
        let rt = if opts.workers <= 1 {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        } else {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(opts.workers)
                .enable_all()
                .build()
        }
        .map_err(|e| e.to_string())?;
        rt.block_on(serve(opts, Arc::new(table)))
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp_floor: {e}");
            std::process::ExitCode::from(2)
        }
    }
}
