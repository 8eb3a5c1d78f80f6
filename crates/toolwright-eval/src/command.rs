//! The `eval` command, owned by this crate so that the CLI stays glue: it flattens [`EvalArgs`]
//! into its `toolwright eval` and calls [`run`]. Everything that knows a benchmark (the `--bfcl`
//! loader, the naive baseline's prompt, the router settings calibrated on BFCL) stays here.
//!
//! Runs a dataset (JSONL, or the BFCL data with `--bfcl DIR`) with one model in `naive` mode
//! (one shot, all tools, no feedback) and/or `guided` mode (toolwright's loop), scores every task
//! with BFCL's rules, prints the summary (or the JSON report with `--format json`) and can write
//! an HTML report. The model comes from the host ([`ModelChoice`]): the CLI fills it from the
//! provider flags that `run` and `chat` share.

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

/// A provider built by the host on first use (so that a usage error in the dataset or the
/// flags is reported before a missing key is).
pub type ProviderFactory = Arc<dyn Fn() -> Result<Arc<dyn Provider>, String> + Send + Sync>;

/// The model behind both modes. The host chooses it from the provider flags it shares with its
/// other agent commands (the CLI's `--provider`, `--model`, `--base-url` and their variables),
/// so that `eval` reads the same environment as `run`.
#[derive(Clone)]
pub enum ModelChoice {
    /// The embedded llama.cpp model: this GGUF file, or the fetched default. Naive mode gives
    /// it BFCL's prompt as a plain chat; guided mode uses its grammar-constrained provider with
    /// the settings calibrated for this benchmark.
    Local(Option<PathBuf>),
    /// Any other provider (an OpenAI-compatible endpoint, Anthropic, prompted JSON): both modes
    /// use the one it builds.
    Provider(ProviderFactory),
}

impl Default for ModelChoice {
    fn default() -> Self {
        ModelChoice::Local(None)
    }
}

impl std::fmt::Debug for ModelChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelChoice::Local(p) => f.debug_tuple("Local").field(p).finish(),
            ModelChoice::Provider(_) => f.write_str("Provider(..)"),
        }
    }
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum FormatArg {
    /// The summary, for people.
    #[default]
    #[value(alias = "table")]
    Text,
    /// The full JSON report.
    Json,
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
    /// The model behind both modes: set by the host from its provider flags, not a flag of
    /// its own.
    #[arg(skip)]
    pub model_choice: ModelChoice,
    /// Most model turns per task in guided mode.
    #[arg(long, default_value_t = 6)]
    pub max_steps: u32,
    /// Embedded model, guided mode: a best router (BM25) score below this means no tool fits the
    /// query. The default was calibrated on BFCL slices the `--limit` runs do not use; 0 turns
    /// it off (then the model itself may decline weak matches).
    #[arg(long, value_name = "SCORE", default_value_t = 0.9)]
    pub relevance_floor: f32,
    /// Embedded model: turn this pass off (repeatable), to measure what it brings: no_tool,
    /// drop_echoed_names, narrowing, written_dates, number_grounding, string_grounding, role_cues,
    /// require_given,
    /// distinct_calls, whole_lists, reask_repeated_numbers, score_values, compose_answer.
    #[arg(long = "pass-off", value_name = "PASS")]
    pub passes_off: Vec<String>,
    /// Shared-toolset folders: only the routing figures (no model run).
    #[arg(long)]
    pub routing_only: bool,
    /// Output on stdout: `text` (the summary) or `json` (the full report).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,
    /// Same as `--format json` (kept for scripts written before `--format`).
    #[arg(long, hide = true)]
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
fn guided_local_config(
    path: PathBuf,
    relevance_floor: f32,
    passes_off: &[String],
) -> Result<toolwright_local::LocalConfig, String> {
    let mut c = local_config(path, passes_off)?;
    if relevance_floor > 0.0 {
        c.passes.relevance_floor = Some(relevance_floor);
        c.passes.decline_weak_matches = Some(relevance_floor);
    }
    c.close_ratio = 0.85;
    Ok(c)
}

/// The product's defaults with the passes named in `--pass-off` turned off.
#[cfg(feature = "local")]
fn local_config(
    path: PathBuf,
    passes_off: &[String],
) -> Result<toolwright_local::LocalConfig, String> {
    let mut c = toolwright_local::LocalConfig::new(path);
    for name in passes_off {
        c.passes.switch_off(name)?;
    }
    Ok(c)
}

/// The GGUF of the embedded model: the chosen file, else the fetched default.
#[cfg(feature = "local")]
fn local_model_path(model: Option<&PathBuf>) -> Result<PathBuf, String> {
    match model {
        Some(p) => Ok(p.clone()),
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
    if let ModelChoice::Local(model) = &args.model_choice {
        let config = local_config(local_model_path(model.as_ref())?, &args.passes_off)?;
        let p = toolwright_local::LocalProvider::new(config).map_err(|e| e.to_string())?;
        return Ok(Arc::new(p));
    }
    providers(args).map(|(_, guided)| guided)
}

/// The providers of naive and guided mode.
type ProviderPair = (Arc<dyn Provider>, Arc<dyn Provider>);

fn providers(args: &EvalArgs) -> Result<ProviderPair, String> {
    match &args.model_choice {
        #[cfg(not(feature = "local"))]
        ModelChoice::Local(_) => Err(
            "this build has no embedded model (toolwright-eval feature `local`); use --provider \
             openai or anthropic"
                .to_string(),
        ),
        #[cfg(feature = "local")]
        ModelChoice::Local(model) => {
            use toolwright_local::{LocalChat, LocalProvider};
            let path = local_model_path(model.as_ref())?;
            let local = Arc::new(
                LocalProvider::new(guided_local_config(
                    path,
                    args.relevance_floor,
                    &args.passes_off,
                )?)
                .map_err(|e| e.to_string())?,
            );
            // Naive: the same model as a plain chat, given BFCL's prompt (toolwright_eval::naive).
            let naive: Arc<dyn Provider> = Arc::new(LocalChat(local.clone()));
            Ok((naive, local))
        }
        ModelChoice::Provider(build) => {
            let p = build()?;
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
pub async fn run(mut args: EvalArgs) -> Result<(), CommandError> {
    let usage = CommandError::Usage;
    // `--json` is `--format json`; the shared-toolset run reads the flag.
    args.json |= args.format == FormatArg::Json;
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
        .map_err(|e| usage(e.to_string()))?;
    if let Some(b) = baseline {
        report = report.merge_baseline(b).map_err(|e| usage(e.to_string()))?;
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
