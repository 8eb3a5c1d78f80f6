//! `toolwright ui [--port N] [--functions DEFS.json | --catalog FILE] [--mcp CMD|URL]...`: the
//! local web playground (crate `toolwright-ui`). This file only wires it: the tools, runtime,
//! router, lint and provider are the ones `call`, `route`, `lint` and `run` build.

use crate::cmd_lint::{SpecSource, load_catalog};
use crate::cmd_run::ProviderArgs;
use crate::{Global, Toolset, base_registry, load_definitions, runtime_over, toolset, usage_error};
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

/// Adds `specs` as definition-only tools (validated and recorded, not executed), as `run
/// --functions` does.
fn add_definitions(reg: &Registry, specs: Vec<ToolSpec>, origin: &str) -> Result<(), String> {
    for s in specs {
        let name = s.name.clone();
        reg.register(DefinitionOnly::new(s))
            .map_err(|e| format!("{origin}: tool `{name}`: {e}"))?;
    }
    Ok(())
}

/// The registry for the source flags (the built-in toolset `--toolset` or its default, plus
/// `--functions`/`--catalog` definitions), a label for the page, and whether side effects are
/// declared (for lint).
fn registry(args: &UiArgs, global: &Global) -> Result<(Arc<Registry>, String, bool), String> {
    let own = args.source.functions.is_some() || args.source.catalog.is_some();
    let reg = base_registry(global, own)?;
    let mut labels = match toolset(global, own) {
        Toolset::Demo => vec!["demo toolset".to_string()],
        Toolset::Conformance => vec!["conformance toolset".to_string()],
        Toolset::None => Vec::new(),
    };
    let mut declared = true;
    if let Some(path) = &args.source.functions {
        let origin = path.display().to_string();
        add_definitions(&reg, load_definitions(path)?, &origin)?;
        labels.push(origin);
        declared = false;
    }
    if let Some(path) = &args.source.catalog {
        let origin = path.display().to_string();
        add_definitions(&reg, load_catalog(path)?, &origin)?;
        labels.push(origin);
    }
    if !global.mcp.is_empty() {
        labels.push(format!("MCP {}", global.mcp.join(", ")));
    }
    Ok((reg, labels.join(" + "), declared))
}

async fn toolbox(args: &UiArgs, global: &Global) -> Result<Toolbox, String> {
    let (reg, source, declared) = registry(args, global)?;
    let own = args.source.functions.is_some() || args.source.catalog.is_some();
    let definition_only = own && toolset(global, own) == Toolset::None && global.mcp.is_empty();
    let runtime = runtime_over(global, reg).await?;
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
    // The embedded model composes answers with the demo's sentences only when its tools are in
    // use (as `run`).
    let demo_tools = toolset(global, own) == Toolset::Demo;
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
