//! `toolwright catalog export|check|diff|portability`: the YAML tool catalog as the source of
//! truth for docs, tests and monitoring, and provider-dialect exports.

use crate::cmd_lint::{OutputFormat, SpecSource};
use crate::{Global, usage_error};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use std::path::PathBuf;
use toolwright_catalog::catalog::{self, Change};
use toolwright_catalog::dialect::{self, Dialect};

/// `catalog` arguments.
#[derive(Args, Debug)]
pub struct CatalogArgs {
    #[command(subcommand)]
    command: CatalogCommand,
}

#[derive(Subcommand, Debug)]
enum CatalogCommand {
    /// Write the toolset as a YAML catalog (or, with --dialect, as provider definitions in JSON).
    Export {
        /// Provider dialect: jsonschema, openai, openai-strict, anthropic, gemini, mcp.
        #[arg(long)]
        dialect: Option<String>,
        /// With --dialect: replace every local `$ref` by what it points to and drop `$defs`, for
        /// clients that do not follow references (a recursive reference is cut, with a warning).
        #[arg(long, requires = "dialect")]
        inline_refs: bool,
        /// The `agent` name written in the catalog [default: `toolwright-demo`, or the stem of
        /// the --functions/--catalog file].
        #[arg(long)]
        agent: Option<String>,
        #[command(flatten)]
        source: SpecSource,
    },
    /// Report drift between a catalog file and the code (exit 1 on drift).
    Check {
        /// The catalog file.
        file: PathBuf,
        /// Compare against these definitions instead of the built-in toolset.
        #[arg(long, value_name = "DEFS.json")]
        functions: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
    },
    /// Classify the changes between two catalogs as breaking or compatible (exit 1 on breaking).
    Diff {
        /// The old catalog.
        old: PathBuf,
        /// The new catalog.
        new: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
    },
    /// Per tool and provider: which construct the provider would reject and how the export lowers it.
    Portability {
        /// Only this dialect.
        #[arg(long)]
        dialect: Option<String>,
        #[command(flatten)]
        source: SpecSource,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
    },
}

fn parse_dialect(s: &str) -> Result<Dialect, String> {
    Dialect::parse(s).ok_or_else(|| {
        let all: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
        format!("unknown dialect `{s}`; use one of {}", all.join(", "))
    })
}

fn print_changes(changes: &[Change], format: OutputFormat, what: &str) {
    let breaking = changes.iter().filter(|c| c.breaking).count();
    match format {
        OutputFormat::Json => {
            let out = json!({"changes": changes, "breaking": breaking, "total": changes.len()});
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        OutputFormat::Text => {
            for c in changes {
                let label = if c.breaking {
                    "BREAKING  "
                } else {
                    "compatible"
                };
                let at = if c.pointer.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", c.pointer)
                };
                outln!("{label} {}: {}{at}", c.tool, c.message);
            }
            if changes.is_empty() {
                outln!("no {what}");
            } else {
                outln!("{} changes, {breaking} breaking", changes.len());
            }
        }
    }
}

/// `spec` in `d`, with its references inlined when asked (problems warned on stderr).
fn export_one(spec: &toolwright::ToolSpec, d: Dialect, inline_refs: bool) -> Value {
    if !inline_refs {
        return dialect::export_dialect(spec, d);
    }
    let (v, problems) = dialect::export_inlined(spec, d);
    warn_ref_problems(&spec.name, &problems);
    v
}

/// One warning on stderr per reference that could not be inlined.
pub fn warn_ref_problems(tool: &str, problems: &[toolwright_catalog::schema::RefProblem]) {
    for p in problems {
        let at = if p.pointer.is_empty() {
            "/"
        } else {
            p.pointer.as_str()
        };
        if p.recursive {
            eprintln!(
                "toolwright: warning: tool `{tool}`: the reference `{}` at {at} is recursive (or too large to inline); cut to an object",
                p.reference
            );
        } else {
            eprintln!(
                "toolwright: warning: tool `{tool}`: the reference `{}` at {at} does not resolve; replaced by an empty schema",
                p.reference
            );
        }
    }
}

/// Runs `catalog`.
pub async fn run(args: CatalogArgs, global: &Global) -> i32 {
    match args.command {
        CatalogCommand::Export {
            dialect,
            inline_refs,
            agent,
            source,
        } => {
            let loaded = match source.load(global).await {
                Ok(l) => l,
                Err(e) => return usage_error(&e),
            };
            let agent = agent.unwrap_or_else(|| {
                source
                    .functions
                    .as_ref()
                    .or(source.catalog.as_ref())
                    .and_then(|p| p.file_stem())
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "toolwright-demo".to_string())
            });
            match dialect {
                None => match catalog::export(&loaded.specs, &agent) {
                    Ok(yaml) => {
                        print!("{yaml}");
                        0
                    }
                    Err(e) => {
                        eprintln!("toolwright: {e}");
                        1
                    }
                },
                Some(d) => {
                    let d = match parse_dialect(&d) {
                        Ok(d) => d,
                        Err(e) => return usage_error(&e),
                    };
                    let defs: Vec<Value> = loaded
                        .specs
                        .iter()
                        .map(|s| export_one(s, d, inline_refs))
                        .collect();
                    outln!(
                        "{}",
                        serde_json::to_string_pretty(&defs).unwrap_or_default()
                    );
                    0
                }
            }
        }
        CatalogCommand::Check {
            file,
            functions,
            format,
        } => {
            if !file.exists() {
                return usage_error(&format!("no such file: {}", file.display()));
            }
            let source = SpecSource {
                functions,
                catalog: None,
            };
            let loaded = match source.load(global).await {
                Ok(l) => l,
                Err(e) => return usage_error(&e),
            };
            match catalog::check_file(&file, &loaded.specs) {
                Ok(drift) => {
                    print_changes(&drift, format, "drift: the catalog matches the code");
                    i32::from(!drift.is_empty())
                }
                // A catalog that cannot be read or parsed is bad input (2), not drift (1).
                Err(e) => usage_error(&e.to_string()),
            }
        }
        CatalogCommand::Diff { old, new, format } => {
            for f in [&old, &new] {
                if !f.exists() {
                    return usage_error(&format!("no such file: {}", f.display()));
                }
            }
            let (a, b) = match (catalog::load_catalog(&old), catalog::load_catalog(&new)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) | (_, Err(e)) => return usage_error(&e.to_string()),
            };
            let changes = catalog::diff(&a, &b);
            print_changes(&changes, format, "changes");
            i32::from(catalog::has_breaking(&changes))
        }
        CatalogCommand::Portability {
            dialect,
            source,
            format,
        } => {
            let only = match dialect.as_deref().map(parse_dialect).transpose() {
                Ok(d) => d,
                Err(e) => return usage_error(&e),
            };
            let loaded = match source.load(global).await {
                Ok(l) => l,
                Err(e) => return usage_error(&e),
            };
            let report: Vec<_> = dialect::portability(&loaded.specs)
                .into_iter()
                .filter(|p| only.is_none_or(|d| d == p.dialect))
                .collect();
            match format {
                OutputFormat::Json => outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).unwrap_or_default()
                ),
                OutputFormat::Text => {
                    for p in &report {
                        if p.lowerings.is_empty() {
                            outln!("{} {}: portable as is", p.tool, p.dialect);
                        }
                        for l in &p.lowerings {
                            let at = if l.pointer.is_empty() {
                                "(root)"
                            } else {
                                l.pointer.as_str()
                            };
                            outln!(
                                "{} {} {at}: {} → {}",
                                p.tool,
                                p.dialect,
                                l.construct,
                                l.action
                            );
                        }
                    }
                }
            }
            0
        }
    }
}
