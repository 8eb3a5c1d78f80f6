//! `toolwright lint [--functions DEFS.json | --catalog FILE.yaml] [--format json]`: rules that
//! catch tool definitions a model will misuse. Exit 1 when an error-level finding exists.

use crate::{Global, build_runtime, load_definitions, usage_error};
use clap::Args;
use serde_json::json;
use std::path::{Path, PathBuf};
use toolwright::ToolSpec;
use toolwright_catalog::lint::{self, LintOptions, Severity};

pub use crate::output::Format as OutputFormat;

/// Where the specs of a command come from.
#[derive(Args, Debug, Clone, Default)]
pub struct SpecSource {
    /// External tool definitions: an OpenAI tools array, bare {name, description, parameters}
    /// objects, or an MCP tools/list result [default: the built-in demo toolset].
    #[arg(long, value_name = "DEFS.json", conflicts_with = "catalog")]
    pub functions: Option<PathBuf>,
    /// A tool catalog (YAML, as written by `toolwright catalog export`).
    #[arg(long, value_name = "FILE.yaml")]
    pub catalog: Option<PathBuf>,
}

/// Specs and whether they declare their side effects (external definitions do not).
pub struct LoadedSpecs {
    /// The specs.
    pub specs: Vec<ToolSpec>,
    /// Side effects and idempotency are declared (registry or catalog).
    pub declared: bool,
}

impl SpecSource {
    /// Loads the specs: definitions file, catalog file, or the demo registry (with `--mcp` imports).
    ///
    /// # Errors
    /// A message for the user.
    pub async fn load(&self, global: &Global) -> Result<LoadedSpecs, String> {
        if let Some(f) = &self.functions {
            return Ok(LoadedSpecs {
                specs: load_definitions(f)?,
                declared: false,
            });
        }
        if let Some(c) = &self.catalog {
            return Ok(LoadedSpecs {
                specs: load_catalog(c)?,
                declared: true,
            });
        }
        let runtime = build_runtime(global).await?;
        Ok(LoadedSpecs {
            specs: runtime.registry().specs(),
            declared: true,
        })
    }
}

/// Reads a catalog file as specs; the error names the file, line and column.
///
/// # Errors
/// A message for the user.
pub fn load_catalog(path: &Path) -> Result<Vec<ToolSpec>, String> {
    toolwright_catalog::catalog::load(path).map_err(|e| e.to_string())
}

/// `lint` arguments.
#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    source: SpecSource,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
    /// The toolset is served through routing (find_tools + top-k), so the tool-count rule (TW010) is off.
    #[arg(long)]
    routing: bool,
    /// Also fail (exit 1) on warnings.
    #[arg(long)]
    deny_warnings: bool,
}

/// Runs `lint`.
pub async fn run(args: LintArgs, global: &Global) -> i32 {
    let loaded = match args.source.load(global).await {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let options = LintOptions {
        routing: args.routing,
        declared_side_effects: loaded.declared,
        ..LintOptions::default()
    };
    let findings = lint::lint(&loaded.specs, &options);
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    match args.format {
        OutputFormat::Json => {
            let out = json!({
                "tools": loaded.specs.len(),
                "findings": findings,
                "summary": {"errors": errors, "warnings": warnings, "infos": infos},
            });
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        OutputFormat::Text => {
            for f in &findings {
                let place = match (&f.tool, &f.pointer) {
                    (Some(t), Some(p)) if !p.is_empty() => format!("{t} {p}"),
                    (Some(t), _) => t.clone(),
                    (None, _) => "(toolset)".to_string(),
                };
                outln!(
                    "{:<7} {} {} [{}]: {}",
                    f.severity.as_str(),
                    f.rule,
                    place,
                    f.name,
                    f.message
                );
                outln!("        fix: {}", f.fix);
            }
            outln!(
                "{} tools: {errors} errors, {warnings} warnings, {infos} infos",
                loaded.specs.len()
            );
        }
    }
    if errors > 0 || (args.deny_warnings && warnings > 0) {
        1
    } else {
        0
    }
}
