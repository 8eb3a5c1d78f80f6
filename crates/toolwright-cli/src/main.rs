//! `toolwright`: list, inspect, call and check tools; the other subcommands build on the same
//! registry and runtime.
//!
//! Exit codes: 0 ok, 1 the call or command failed as reported, 2 usage error.

use clap::{Args, CommandFactory, Parser, Subcommand};
use std::process::ExitCode;
use std::sync::Arc;
use toolwright::{Registry, ToolSpec};
use toolwright_runtime::Runtime;

/// `println!` that does not panic when stdout is closed (`toolwright call … | head`): a write
/// error such as a broken pipe is ignored, as the reader has gone.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod cmd_call;
mod cmd_catalog;
mod cmd_chat;
mod cmd_check;
mod cmd_completions;
mod cmd_eval;
mod cmd_lint;
mod cmd_model;
mod cmd_route;
mod cmd_run;
mod cmd_serve;
mod cmd_stats;
mod cmd_tools;
mod cmd_ui;
mod output;
mod provider_choice;
mod runtime_cli;
mod telemetry;

/// The tool layer for LLM agents.
#[derive(Parser, Debug)]
#[command(name = "toolwright", version, about, long_about = None)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// Options every subcommand accepts.
#[derive(Args, Debug, Clone, Default)]
pub struct Global {
    /// Root directory of the demo file tools' sandbox [default: $TOOLWRIGHT_ROOT or the current directory].
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<std::path::PathBuf>,
    /// Idempotency store: `memory`, `sqlite:PATH` or `redis://HOST:PORT/DB`.
    #[arg(long, global = true, value_name = "URL")]
    pub store: Option<String>,
    /// Import the tools of an MCP server: a command line (stdio) or an http(s) URL. Repeatable.
    #[arg(long, global = true, value_name = "CMD|URL")]
    pub mcp: Vec<String>,
    /// Prefix for the names of tools imported with --mcp (default: names kept). Given once, it
    /// applies to every server; given once per --mcp, the Nth applies to the Nth server.
    /// `{server}` stands for the server's own name (`--mcp-prefix '{server}__'`).
    #[arg(long, global = true, value_name = "PREFIX")]
    pub mcp_prefix: Vec<String>,
    /// Deadline of one call to an MCP server's tool, in milliseconds.
    #[arg(long, global = true, value_name = "MS", default_value_t = 30_000)]
    pub mcp_timeout_ms: u64,
    /// Deadline of an MCP server's start and handshake, in milliseconds (a first `npx -y` run
    /// may still be installing the package).
    #[arg(long, global = true, value_name = "MS", default_value_t = 20_000)]
    pub mcp_connect_timeout_ms: u64,
    /// The built-in tools [default: `demo` when no --functions, --catalog or --mcp brings tools,
    /// else `none`].
    #[arg(long, global = true, value_enum)]
    pub toolset: Option<Toolset>,
    /// Export spans (agent runs, model calls, tool calls) over OTLP/HTTP to this collector: a
    /// base URL like OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces` is appended) [default: the
    /// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT variable; none: no
    /// export]. Needs the `otel` feature.
    #[arg(long, global = true, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// More log on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, when set, decides instead).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Errors only on stderr's log (RUST_LOG, when set, decides instead).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
}

/// The built-in tools a command starts from.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolset {
    /// The demo tools (currency, weather, files, calculator, users).
    Demo,
    /// The fixture tools of the official MCP conformance suite.
    Conformance,
    /// No built-in tools (only `--mcp` imports, `--functions` or `--catalog`).
    None,
}

/// The registry of built-in tools a command starts from: `--toolset`, or by default the demo
/// tools only when the user brings none (`own_tools`: `--functions`/`--catalog` given; `--mcp`
/// counts too), so that imported tools never clash with the demo's.
///
/// # Errors
/// A message for the user.
pub fn base_registry(global: &Global, own_tools: bool) -> Result<Arc<Registry>, String> {
    match toolset(global, own_tools) {
        Toolset::Demo => demo_registry(global),
        Toolset::Conformance => toolwright_mcp::conformance::registry()
            .map(Arc::new)
            .map_err(|e| format!("cannot build the conformance toolset: {e}")),
        Toolset::None => Ok(Arc::new(Registry::new())),
    }
}

/// The built-in toolset in use (see [`base_registry`]).
pub fn toolset(global: &Global, own_tools: bool) -> Toolset {
    match global.toolset {
        Some(t) => t,
        None if own_tools || !global.mcp.is_empty() => Toolset::None,
        None => Toolset::Demo,
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List or show tools.
    Tools(cmd_tools::ToolsArgs),
    /// Call one tool and print its envelope as JSON.
    Call(cmd_call::CallArgs),
    /// Validate recorded calls (JSONL) against tool definitions; one JSON result per line.
    Check(cmd_check::CheckArgs),
    /// Score a model's tool calls on a dataset (JSONL, or a benchmark's data): naive vs guided mode.
    Eval(cmd_eval::EvalCommandArgs),
    /// Lint tool definitions: vague names, missing docs, unbounded numbers, unsafe side effects.
    Lint(cmd_lint::LintArgs),
    /// Tool catalog: export (YAML or provider dialects), check drift, diff, portability.
    Catalog(cmd_catalog::CatalogArgs),
    /// Rank the tools for a query as the router would.
    Route(cmd_route::RouteArgs),
    /// Serve the tools as an MCP server (stdio or Streamable HTTP).
    Serve(cmd_serve::ServeArgs),
    /// Answer a request with an LLM agent that calls the tools.
    Run(cmd_run::RunArgs),
    /// Talk with the agent (a REPL that keeps the conversation).
    Chat(cmd_chat::ChatArgs),
    /// The embedded model: `fetch` downloads it, `path` shows where it is.
    Model(cmd_model::ModelArgs),
    /// Per-tool runtime metrics of the calls made so far (table, JSON or Prometheus text).
    Stats(cmd_stats::StatsArgs),
    /// A local web playground: browse, search and try the tools, run the agent with a live trace.
    Ui(cmd_ui::UiArgs),
    /// Print the shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(cmd_completions::CompletionsArgs),
}

/// The demo registry, configured from the global options.
///
/// # Errors
/// A message for the user.
pub fn demo_registry(global: &Global) -> Result<Arc<Registry>, String> {
    let mut config = toolwright_demo::DemoConfig::default();
    if let Some(root) = &global.root {
        config.root = root.clone();
    }
    toolwright_demo::registry(config)
        .map(Arc::new)
        .map_err(|e| format!("cannot build the demo toolset: {e}"))
}

/// The runtime over the built-in tools ([`base_registry`]) and the tools imported with `--mcp`,
/// honouring the global options.
///
/// # Errors
/// A message for the user.
pub async fn build_runtime(global: &Global) -> Result<Runtime, String> {
    let registry = base_registry(global, false)?;
    runtime_over(global, registry).await
}

/// The runtime over `registry` plus the tools imported with `--mcp`, honouring the global options.
///
/// # Errors
/// A message for the user.
pub async fn runtime_over(global: &Global, registry: Arc<Registry>) -> Result<Runtime, String> {
    cmd_serve::import_mcp(global, &registry).await?;
    let store = runtime_cli::store(global)?;
    Ok(runtime_cli::track(
        Runtime::builder(registry).store(store).build(),
    ))
}

/// Reads a definitions file (OpenAI tools array, bare objects, MCP tools/list result).
///
/// # Errors
/// A message naming the file and the problem.
pub fn load_definitions(path: &std::path::Path) -> Result<Vec<ToolSpec>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid JSON: {e}", path.display()))?;
    toolwright::defs::parse_definitions(&value).map_err(|e| format!("{}: {e}", path.display()))
}

/// Prints a usage/setup error and returns exit code 2.
pub fn usage_error(msg: &str) -> i32 {
    eprintln!("toolwright: {msg}");
    2
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Before the async runtime: the OTLP exporter builds its blocking HTTP client here.
    let telemetry = telemetry::init(&cli.global);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("toolwright: cannot start the async runtime: {e}");
            telemetry.shutdown();
            return ExitCode::from(2);
        }
    };
    let code = rt.block_on(async move {
        let g = &cli.global;
        match cli.command {
            Command::Tools(a) => cmd_tools::run(a, g).await,
            Command::Call(a) => cmd_call::run(a, g).await,
            Command::Check(a) => cmd_check::run(a, g).await,
            Command::Eval(a) => cmd_eval::run(a, g).await,
            Command::Lint(a) => cmd_lint::run(a, g).await,
            Command::Catalog(a) => cmd_catalog::run(a, g).await,
            Command::Route(a) => cmd_route::run(a, g).await,
            Command::Serve(a) => cmd_serve::run(a, g).await,
            Command::Run(a) => cmd_run::run(a, g).await,
            Command::Chat(a) => cmd_chat::run(a, g).await,
            Command::Model(a) => cmd_model::run(a, g).await,
            Command::Stats(a) => cmd_stats::run(a, g).await,
            Command::Ui(a) => cmd_ui::run(a, g).await,
            Command::Completions(a) => cmd_completions::run(&a, Cli::command()),
        }
    });
    // A sync tool body that never returns (its call already answered TIMEOUT) must not keep
    // the process alive: dropping the runtime would wait for its thread forever.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    runtime_cli::flush();
    // Whatever the exit code: a short `run` must not lose its spans.
    telemetry.shutdown();
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// clap's own consistency checks (unique ids and groups, valid defaults) over every
    /// subcommand, as `completions` and `--help` build them.
    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
