//! `toolwright run "QUERY"`: the agent answers a request with the tools, showing each step.
//!
//! Provider: the shared provider flags ([`ProviderArgs`]: `--provider`/`--base-url`/`--model`
//! and their variables), else `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, else the embedded model
//! (`toolwright model fetch`).

use crate::output::Format;
use crate::{Global, build_runtime, load_definitions, usage_error};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolwright::{DefinitionOnly, Status};
use toolwright_agent::{Agent, AgentConfig, AgentEvent, Mode, Observer, StopReason, Trace};
use toolwright_runtime::Runtime;

pub use crate::provider_choice::ProviderArgs;

/// Agent flags shared by `run` and `chat`.
#[derive(Args, Debug, Clone)]
pub struct AgentArgs {
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Most model turns per request.
    #[arg(long, default_value_t = 8)]
    pub max_steps: u32,
    /// `loop` (multi-step, corrections) or `plan-execute` (the naive single-shot baseline).
    #[arg(long, default_value = "loop", value_parser = parse_mode)]
    pub mode: Mode,
    /// Tools defined in a file (OpenAI tools array, bare objects, MCP tools/list): calls are
    /// validated and recorded, not executed.
    #[arg(long, value_name = "DEFS.json")]
    pub functions: Option<PathBuf>,
    /// Count calls that need confirmation as approved by you.
    #[arg(long)]
    pub approve: bool,
    /// How the agent's router scores tools [default: hybrid when the local embedder is
    /// installed, else bm25].
    #[arg(long, value_parser = crate::cmd_route::parse_scorer, value_name = "bm25|dense|hybrid")]
    pub scorer: Option<toolwright_catalog::ScorerKind>,
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s).ok_or_else(|| format!("unknown mode `{s}` (loop | plan-execute)"))
}

/// `run` arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The request.
    pub query: String,
    #[command(flatten)]
    pub agent: AgentArgs,
    /// Output: `text` (the answer, steps on stderr) or `json` (the whole trace: messages,
    /// calls, envelopes, timings, tokens).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Same as `--format json`.
    #[arg(long, hide = true)]
    pub json: bool,
}

/// The runtime for the agent: the built-in toolset ([`crate::base_registry`]: the demo's unless
/// the user brings tools), the definition-only tools of `--functions`, and the MCP imports.
pub async fn agent_runtime(args: &AgentArgs, global: &Global) -> Result<Runtime, String> {
    match &args.functions {
        Some(path) => {
            let specs = load_definitions(path)?;
            let reg = crate::base_registry(global, true)?;
            for s in specs {
                let name = s.name.clone();
                reg.register(DefinitionOnly::new(s))
                    .map_err(|e| format!("{}: tool `{name}`: {e}", path.display()))?;
            }
            // Same store, MCP imports and stats as every other command.
            crate::runtime_over(global, reg).await
        }
        None => build_runtime(global).await,
    }
}

/// Builds the agent for `args`.
pub async fn build_agent(
    args: &AgentArgs,
    global: &Global,
    observer: Option<Arc<dyn Observer>>,
) -> Result<Agent, String> {
    // The embedded model composes answers with the demo's sentences only when its tools are in use.
    let demo = crate::toolset(global, args.functions.is_some()) == crate::Toolset::Demo;
    let provider = args.provider.build(demo)?;
    let runtime = agent_runtime(args, global).await?;
    let config = AgentConfig {
        mode: args.mode,
        max_steps: args.max_steps.max(1),
        approve: args.approve,
        ..AgentConfig::default()
    };
    let specs = runtime.registry().specs();
    let setup = toolwright_local::routing::build_router(specs, args.scorer, &mut |_, _| {})?;
    if let Some(hint) = &setup.hint {
        eprintln!("toolwright: {hint}");
    }
    let ranker = toolwright_agent::routing::CatalogRanker::from_router(setup.router);
    let mut agent = Agent::new(provider, runtime, config).with_ranker(Arc::new(ranker));
    if let Some(o) = observer {
        agent = agent.with_observer(o);
    }
    Ok(agent)
}

/// Shows the steps on stderr: a spinner while the model thinks, one line per call.
pub struct Progress {
    bar: Mutex<Option<ProgressBar>>,
    live: bool,
}

impl Progress {
    /// A progress display (spinner only on a terminal).
    pub fn new() -> Self {
        Progress {
            bar: Mutex::new(None),
            live: std::io::stderr().is_terminal(),
        }
    }

    /// Clears the spinner, if one is turning (a run that ended without the model's answer,
    /// e.g. a provider error, leaves it).
    pub fn stop(&self) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish_and_clear();
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

fn short_json(v: &Value, max: usize) -> String {
    let s = v.to_string();
    if s.chars().count() <= max {
        s
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

impl Observer for Progress {
    fn event(&self, event: &AgentEvent<'_>) {
        match event {
            AgentEvent::ModelStarted { step } => {
                if self.live {
                    let b = ProgressBar::new_spinner();
                    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
                        b.set_style(style);
                    }
                    b.set_message(format!("thinking (step {step})"));
                    b.enable_steady_tick(Duration::from_millis(100));
                    *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(b);
                }
            }
            AgentEvent::ModelFinished { step, ms, reply } => {
                self.stop();
                let tokens = reply
                    .usage
                    .map(|u| format!(", {} → {} tokens", u.input_tokens, u.output_tokens))
                    .unwrap_or_default();
                eprintln!("· model step {step}: {:.1} s{tokens}", *ms as f64 / 1000.0);
                if let Some(t) = &reply.thought {
                    eprintln!("  thought: {t}");
                }
            }
            AgentEvent::Routed { .. } | AgentEvent::CallStarted { .. } => {}
            AgentEvent::CallFinished { record } => {
                let env = &record.envelope;
                let status = match env.status() {
                    Status::Success => "ok".to_string(),
                    Status::Partial => "partial".to_string(),
                    Status::NeedsConfirmation => "needs confirmation".to_string(),
                    Status::Error => format!(
                        "error {}",
                        env.error()
                            .as_ref()
                            .map_or_else(String::new, |e| e.code.as_str().to_string())
                    ),
                };
                eprintln!(
                    "→ {}: {} {}  [{status}, {} ms]",
                    record.label,
                    record.call.name,
                    short_json(&record.call.arguments, 160),
                    env.meta.duration_ms
                );
                if let Some(e) = &env.error() {
                    eprintln!("  {}", e.message);
                }
            }
        }
    }
}

/// Prints the end of a run for a person and returns the exit code.
pub fn print_outcome(trace: &Trace) -> i32 {
    match &trace.stop {
        StopReason::Answered => {
            println!("{}", trace.answer.as_deref().unwrap_or_default());
            0
        }
        StopReason::RepeatedFailingCall { .. } => {
            println!("{}", trace.answer.as_deref().unwrap_or_default());
            1
        }
        StopReason::MaxSteps => {
            eprintln!(
                "toolwright: no answer after {} model steps (raise --max-steps?)",
                trace.steps.len()
            );
            1
        }
        StopReason::ProviderError { message } => {
            eprintln!("toolwright: {message}");
            1
        }
    }
}

/// Runs `run`.
pub async fn run(args: RunArgs, global: &Global) -> i32 {
    let json = args.json || args.format == Format::Json;
    let progress: Option<Arc<dyn Observer>> = if json {
        None
    } else {
        Some(Arc::new(Progress::new()))
    };
    let mut agent = match build_agent(&args.agent, global, progress).await {
        Ok(a) => a,
        Err(e) => return usage_error(&e),
    };
    let trace = agent.run_trace(&args.query).await;
    if json {
        match serde_json::to_string_pretty(&trace) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("toolwright: cannot serialize the trace: {e}");
                return 1;
            }
        }
        return if trace.stop == StopReason::Answered {
            0
        } else {
            1
        };
    }
    for n in trace.steps.iter().flat_map(|s| s.notes.iter()) {
        if n.starts_with("the model's answer did not state") || n.contains("composed") {
            eprintln!("  note: {n}");
        }
    }
    let code = print_outcome(&trace);
    eprintln!(
        "({:.1} s: model {:.1} s, tools {} ms; {} → {} tokens; {})",
        trace.total_ms as f64 / 1000.0,
        trace.model_ms as f64 / 1000.0,
        trace.tools_ms,
        trace.usage.input_tokens,
        trace.usage.output_tokens,
        trace.provider
    );
    code
}
