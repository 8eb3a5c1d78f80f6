//! `toolwright ui [--port N] [--functions DEFS.json | --catalog FILE] [--mcp CMD|URL]...`: the
//! local web playground (crate `toolwright-ui`). This file only wires it: the tools, runtime,
//! router, lint and provider are the ones `call`, `route`, `lint` and `run` build.

use crate::cmd_lint::{SpecSource, load_catalog};
use crate::cmd_run::ProviderArgs;
use crate::{Global, demo_registry, load_definitions, runtime_over, usage_error};
use clap::Args;
use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use toolwright::{DefinitionOnly, Registry, ToolSpec};
use toolwright_agent::routing::CatalogRanker;
use toolwright_agent::{AgentConfig, Mode};
use toolwright_catalog::lint::{self, LintOptions};
use toolwright_ui::{Toolbox, UiOptions, UiServer};

/// `ui` arguments.
#[derive(Args, Debug)]
pub struct UiArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 7878)]
    port: u16,
    /// Address to listen on. Anything but loopback exposes the tools to the network (the token
    /// is still required).
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    #[command(flatten)]
    source: SpecSource,
    #[command(flatten)]
    provider: ProviderArgs,
    /// How the router scores tools [default: hybrid when the local embedder is installed, else bm25].
    #[arg(long, value_parser = crate::cmd_route::parse_scorer, value_name = "bm25|dense|hybrid")]
    scorer: Option<toolwright_catalog::ScorerKind>,
    /// Most model turns per agent request.
    #[arg(long, default_value_t = 8)]
    max_steps: u32,
}

/// A registry of definition-only tools (validated and recorded, not executed), as `run
/// --functions` makes.
fn definition_registry(specs: Vec<ToolSpec>, origin: &str) -> Result<Arc<Registry>, String> {
    let reg = Registry::new();
    for s in specs {
        let name = s.name.clone();
        reg.register(DefinitionOnly::new(s))
            .map_err(|e| format!("{origin}: tool `{name}`: {e}"))?;
    }
    Ok(Arc::new(reg))
}

/// The registry for the source flags, a label for the page, and whether side effects are
/// declared (for lint).
fn registry(args: &UiArgs, global: &Global) -> Result<(Arc<Registry>, String, bool), String> {
    if let Some(path) = &args.source.functions {
        let origin = path.display().to_string();
        let reg = definition_registry(load_definitions(path)?, &origin)?;
        return Ok((reg, origin, false));
    }
    if let Some(path) = &args.source.catalog {
        let origin = path.display().to_string();
        let reg = definition_registry(load_catalog(path)?, &origin)?;
        return Ok((reg, origin, true));
    }
    Ok((demo_registry(global)?, "demo toolset".to_string(), true))
}

async fn toolbox(args: &UiArgs, global: &Global) -> Result<Toolbox, String> {
    let (reg, mut source, declared) = registry(args, global)?;
    let definition_only = args.source.functions.is_some() || args.source.catalog.is_some();
    let runtime = runtime_over(global, reg).await?;
    if !global.mcp.is_empty() {
        source = format!("{source} + MCP {}", global.mcp.join(", "));
    }
    let specs = runtime.registry().specs();
    let findings = lint::lint(
        &specs,
        &LintOptions {
            declared_side_effects: declared,
            ..LintOptions::default()
        },
    );
    let setup = toolwright_local::routing::build_router(specs, args.scorer, &mut |_, _| {})?;
    if let Some(hint) = &setup.hint {
        eprintln!("toolwright: {hint}");
    }
    let provider = args.provider.clone();
    // Demo sentences for the embedded model's answers only when the tools are the demo's.
    let demo_tools = !definition_only;
    Ok(Toolbox {
        runtime,
        ranker: Arc::new(CatalogRanker::from_router(setup.router)),
        findings,
        source,
        definition_only,
        agent: AgentConfig {
            mode: Mode::Loop,
            max_steps: args.max_steps.max(1),
            ..AgentConfig::default()
        },
        provider: Arc::new(move || provider.build(demo_tools)),
    })
}

/// Runs `ui` until Ctrl-C.
pub async fn run(args: UiArgs, global: &Global) -> i32 {
    let toolbox = match toolbox(&args, global).await {
        Ok(t) => t,
        Err(e) => return usage_error(&e),
    };
    let options = UiOptions {
        addr: SocketAddr::new(args.bind, args.port),
        token: None,
    };
    let server = match UiServer::bind(toolbox, options).await {
        Ok(s) => s,
        Err(e) => {
            return usage_error(&format!(
                "cannot listen on {}:{}: {e} (try --port 0 for any free port)",
                args.bind, args.port
            ));
        }
    };
    outln!("toolwright ui: open {}", server.url());
    if !args.bind.is_loopback() {
        eprintln!(
            "toolwright: warning: listening on {} exposes the tools beyond this machine (the token is still required)",
            args.bind
        );
    }
    let _ = std::io::stdout().flush();
    eprintln!("toolwright: press Ctrl-C to stop");
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match server.serve(stop).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("toolwright: the ui server failed: {e}");
            1
        }
    }
}
