//! The `eval` command, owned by this crate so that the CLI stays glue: it flattens [`EvalArgs`]
//! into its `toolwright eval` and calls [`run`]. Everything that knows a benchmark (the `--bfcl`
//! loader, the naive baseline's prompt, the router settings calibrated on BFCL) stays here.
//!
//! Runs a dataset (JSONL, or the BFCL data with `--bfcl DIR`) with one model in `naive` mode
//! (one shot, all tools, no feedback) and/or `guided` mode (toolwright's loop), scores every task
//! with BFCL's rules, prints the summary (or the JSON report with `--json`) and can write an HTML
//! report.

use crate::agent::AgentSolver;
use crate::{Mode, Report, RunOptions};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::sync::Arc;
use toolwright_agent::Provider;

/// Why the command failed: the user's input (exit code 2 in the CLI) or the run itself (1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Bad arguments, an unreadable dataset or baseline, a provider that cannot be built.
    #[error("{0}")]
    Usage(String),
    /// The report could not be serialized or written.
    #[error("{0}")]
    Failed(String),
}

/// Which modes to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// BFCL's single shot for prompt-based models: its system prompt with every tool, its AST
    /// decoding of `[f(a=1)]`; no grammar, validation feedback, routing or retries.
    Naive,
    /// toolwright's loop: routing, narrow schemas, validation feedback, retry budgets.
    Guided,
    /// Both, naive first, and the relative error reduction.
    Both,
}

/// The model behind both modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProviderArg {
    /// The embedded llama.cpp model (`toolwright model fetch`); naive mode gives it BFCL's
    /// prompt as a plain chat, guided mode uses its grammar-constrained provider.
    Local,
    /// An OpenAI-compatible endpoint (`--base-url`, `--model`, key in $OPENAI_API_KEY).
    Openai,
    /// The Anthropic Messages API (`--model`, key in $ANTHROPIC_API_KEY).
    Anthropic,
}

/// Arguments of `toolwright eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// A JSONL dataset (one `{id, query, functions, expected}` per line), or a folder holding
    /// `tools.json` + `requests.jsonl` (one shared toolset, e.g. the MCP dev set
    /// `crates/toolwright-eval/data/mcp`): routing figures per scorer, the out-of-scope floor,
    /// and end-to-end figures with the product's default settings.
    #[arg(
        long,
        value_name = "FILE|DIR",
        conflicts_with = "bfcl",
        required_unless_present = "bfcl"
    )]
    pub dataset: Option<PathBuf>,
    /// An extracted BFCL data directory (see scripts/fetch-bfcl.sh).
    #[arg(long, value_name = "DIR")]
    pub bfcl: Option<PathBuf>,
    /// Only these categories (repeatable or comma-separated). BFCL: simple_python, multiple,
    /// parallel, irrelevance [default for BFCL: all four].
    #[arg(long, value_delimiter = ',')]
    pub category: Vec<String>,
    /// At most N tasks per category, the first N in file order.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Mode(s) to run.
    #[arg(long, value_enum, default_value = "both")]
    pub mode: ModeArg,
    /// The model provider.
    #[arg(long, value_enum, default_value = "local")]
    pub provider: ProviderArg,
    /// Model: a GGUF path for `local` [default: the fetched SmolLM2], a model name otherwise.
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Base URL of an OpenAI-compatible endpoint (up to `/v1`).
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080/v1")]
    pub base_url: String,
    /// Most model turns per task in guided mode.
    #[arg(long, default_value_t = 6)]
    pub max_steps: u32,
    /// Embedded model, guided mode: a best router (BM25) score below this means no tool fits the
    /// query. The default was calibrated on BFCL slices the `--limit` runs do not use; 0 turns
    /// it off (then the model itself may decline weak matches).
    #[arg(long, value_name = "SCORE", default_value_t = 0.9)]
    pub relevance_floor: f32,
    /// Shared-toolset folders: only the routing figures (no model run).
    #[arg(long)]
    pub routing_only: bool,
    /// Print the full JSON report on stdout instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report to this file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write an HTML report (bar chart per mode and category, failing cases).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// A saved JSON report of the other mode on the same tasks: merged in, so the summary shows
    /// both error rates and the reduction.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

/// The embedded model's settings in guided mode: [`toolwright_local::LocalConfig`]'s defaults,
/// with the router's decisions calibrated on BFCL slices that the reported runs do not use (the
/// `--limit` runs take the first tasks of each file; calibration used `simple_python` 50–399,
/// `irrelevance` 20–239 and `multiple` 20–199, router scores only, no model):
/// - relevance floor 0.9 (`--relevance-floor`): a best BM25 score below it means no tool fits
///   (11% of relevant and 13% of irrelevant queries on the wrong side); at or above it the model
///   must call a tool, since the 135M model's own "none" choice was worse than the score;
/// - candidates within 85% of the best score: the top-ranked tool was right 176/180 times, so the
///   model chooses only between near ties.
///
/// The product's defaults stay neutral (no floor); these values belong to this benchmark.
#[cfg(feature = "local")]
fn guided_local_config(path: PathBuf, relevance_floor: f32) -> toolwright_local::LocalConfig {
    let mut c = toolwright_local::LocalConfig::new(path);
    if relevance_floor > 0.0 {
        c.passes.relevance_floor = Some(relevance_floor);
        c.passes.decline_weak_matches = Some(relevance_floor);
    }
    c.close_ratio = 0.85;
    c
}

/// The GGUF for `--provider local`: `--model`, else the fetched default.
#[cfg(feature = "local")]
fn local_model_path(args: &EvalArgs) -> Result<PathBuf, String> {
    match &args.model {
        Some(p) => Ok(PathBuf::from(p)),
        None => toolwright_local::model::find_model().ok_or_else(|| {
            format!(
                "no embedded model found; run `{}` or pass --model PATH",
                toolwright_local::model::FETCH_COMMAND
            )
        }),
    }
}

/// The provider of a shared-toolset run: for the embedded model, [`toolwright_local::LocalConfig`]
/// with the product's defaults (nothing calibrated on a benchmark); otherwise the guided provider.
pub(crate) fn guided_provider_for_toolsets(args: &EvalArgs) -> Result<Arc<dyn Provider>, String> {
    #[cfg(feature = "local")]
    if args.provider == ProviderArg::Local {
        let p = toolwright_local::LocalProvider::new(toolwright_local::LocalConfig::new(
            local_model_path(args)?,
        ))
        .map_err(|e| e.to_string())?;
        return Ok(Arc::new(p));
    }
    providers(args).map(|(_, guided)| guided)
}

/// The providers of naive and guided mode.
type ProviderPair = (Arc<dyn Provider>, Arc<dyn Provider>);

fn providers(args: &EvalArgs) -> Result<ProviderPair, String> {
    use toolwright_agent::Secret;
    match args.provider {
        #[cfg(not(feature = "local"))]
        ProviderArg::Local => Err(
            "this build has no embedded model (toolwright-eval feature `local`); use --provider \
             openai or anthropic"
                .to_string(),
        ),
        #[cfg(feature = "local")]
        ProviderArg::Local => {
            use toolwright_local::{LocalChat, LocalProvider};
            let path = local_model_path(args)?;
            let local = Arc::new(
                LocalProvider::new(guided_local_config(path, args.relevance_floor))
                    .map_err(|e| e.to_string())?,
            );
            // Naive: the same model as a plain chat, given BFCL's prompt (toolwright_eval::naive).
            let naive: Arc<dyn Provider> = Arc::new(LocalChat(local.clone()));
            Ok((naive, local))
        }
        ProviderArg::Openai => {
            use toolwright_agent::providers::openai::{OpenAiConfig, OpenAiProvider};
            let model = args
                .model
                .clone()
                .ok_or_else(|| "--provider openai needs --model NAME".to_string())?;
            let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
            let config = OpenAiConfig::new(args.base_url.clone(), model).with_key(Secret::new(key));
            let p: Arc<dyn Provider> =
                Arc::new(OpenAiProvider::new(config).map_err(|e| e.to_string())?);
            Ok((p.clone(), p))
        }
        ProviderArg::Anthropic => {
            use toolwright_agent::providers::anthropic::{AnthropicConfig, AnthropicProvider};
            let model = args
                .model
                .clone()
                .ok_or_else(|| "--provider anthropic needs --model NAME".to_string())?;
            let key = std::env::var("ANTHROPIC_API_KEY")
                .map_err(|_| "--provider anthropic needs $ANTHROPIC_API_KEY".to_string())?;
            let config = AnthropicConfig::new(Secret::new(key), model);
            let p: Arc<dyn Provider> =
                Arc::new(AnthropicProvider::new(config).map_err(|e| e.to_string())?);
            Ok((p.clone(), p))
        }
    }
}

fn load_tasks(args: &EvalArgs) -> Result<Vec<crate::Task>, String> {
    let tasks = match (&args.dataset, &args.bfcl) {
        (Some(p), _) => crate::dataset::load_jsonl(p)?,
        (None, Some(dir)) => crate::bfcl::load(dir, &args.category)?,
        (None, None) => return Err("give --dataset FILE or --bfcl DIR".to_string()),
    };
    let tasks = crate::dataset::select(tasks, &args.category, args.limit);
    if tasks.is_empty() {
        return Err("no task matches the dataset, --category and --limit".to_string());
    }
    Ok(tasks)
}

fn write(path: &std::path::Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// What naive mode is, for the summary.
const NAIVE_NOTE: &str = "naive = BFCL's own single shot for prompt-based models: its default system prompt \
(bfcl_eval formulate_system_prompt, ret_fmt=python) with every tool, greedy, answer decoded like its AST decoder; \
no grammar, feedback, routing or retries (toolwright_eval::naive)";

/// Runs the command: loads the tasks, builds the providers, runs the modes, prints the summary
/// (or the JSON report) on stdout and writes the files asked for. Progress goes to stderr.
///
/// # Errors
/// [`CommandError::Usage`] for the user's input, [`CommandError::Failed`] when the report cannot
/// be written.
pub async fn run(args: EvalArgs) -> Result<(), CommandError> {
    let usage = CommandError::Usage;
    if let Some(dir) = args
        .dataset
        .as_deref()
        .filter(|p| crate::toolset::ToolsetDataset::is_dataset_dir(p))
    {
        return crate::toolset_command::run(&args, dir).await;
    }
    let tasks = load_tasks(&args).map_err(usage)?;
    let baseline = match &args.baseline {
        Some(p) => Some(
            std::fs::read_to_string(p)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<Report>(&t).map_err(|e| e.to_string()))
                .map_err(|e| usage(format!("cannot read the baseline {}: {e}", p.display())))?,
        ),
        None => None,
    };
    let (naive, guided) = providers(&args).map_err(usage)?;
    let solver = AgentSolver::new(naive, guided).with_max_steps(args.max_steps);
    let modes: Vec<Mode> = match args.mode {
        ModeArg::Naive => vec![Mode::Naive],
        ModeArg::Guided => vec![Mode::Guided],
        ModeArg::Both => vec![Mode::Naive, Mode::Guided],
    };
    eprintln!(
        "toolwright eval: {} task(s) × {} mode(s) with {}",
        tasks.len(),
        modes.len(),
        crate::Solver::name(&solver)
    );
    let opts = RunOptions { progress: true };
    let mut report = crate::run::run(&tasks, &solver, &modes, &opts)
        .await
        .map_err(usage)?;
    if let Some(b) = baseline {
        report = report.merge_baseline(b).map_err(usage)?;
    }
    let json = serde_json::to_string_pretty(&report)
        .map_err(|e| CommandError::Failed(format!("cannot serialize the report: {e}")))?;
    if let Some(p) = &args.out {
        write(p, &json).map_err(CommandError::Failed)?;
    }
    if let Some(p) = &args.html {
        write(p, &crate::html::render(&report)).map_err(CommandError::Failed)?;
    }
    if args.json {
        println!("{json}");
    } else {
        print!("{}", report.summary_text());
        if report.summary(Mode::Naive).is_some() {
            println!("{NAIVE_NOTE}");
        }
    }
    Ok(())
}
