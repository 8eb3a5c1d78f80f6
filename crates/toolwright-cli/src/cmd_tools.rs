//! `toolwright tools list|show`.

use crate::{Global, build_runtime, usage_error};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use toolwright::ToolSpec;

/// `tools` arguments.
#[derive(Args, Debug)]
pub struct ToolsArgs {
    #[command(subcommand)]
    command: ToolsCommand,
}

#[derive(Subcommand, Debug)]
enum ToolsCommand {
    /// List the tools with their metadata.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Show one tool: description, parameters, metadata.
    Show {
        /// Tool name.
        name: String,
        /// Provider dialect of the definition (`--format json`).
        #[arg(long, default_value = "jsonschema")]
        dialect: String,
        /// Replace every local `$ref` of the schema by what it points to and drop `$defs`.
        #[arg(long)]
        inline_refs: bool,
        /// Output: `json` (the definition in the dialect) or `text` (description, parameters
        /// and policies for people).
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
}

pub use crate::output::Format;

fn first_sentence(s: &str) -> String {
    let s = s.lines().next().unwrap_or_default();
    match s.find(". ") {
        Some(i) => s.get(..=i).unwrap_or(s).to_string(),
        None => s.to_string(),
    }
}

/// `spec` for people: the name and label, the description, one line per parameter (type,
/// required, description) and the policies.
pub fn spec_text(spec: &ToolSpec) -> String {
    let mut out = spec.name.clone();
    if let Some(label) = &spec.meta.display_label {
        out.push_str(&format!(" — {label}"));
    }
    out.push_str(&format!("\n\n{}\n\nparameters:\n", spec.description.trim()));
    let required: Vec<&str> = spec
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props = spec.parameters.get("properties").and_then(Value::as_object);
    for (name, schema) in props.into_iter().flatten() {
        let ty = schema
            .get("type")
            .map(|t| match t {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .or_else(|| schema.get("enum").map(|e| format!("one of {e}")))
            .unwrap_or_else(|| "any".to_string());
        let need = if required.contains(&name.as_str()) {
            "required"
        } else {
            "optional"
        };
        let about = schema
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        out.push_str(&format!("  {name} ({ty}, {need}){about}\n"));
    }
    if props.is_none_or(|p| p.is_empty()) {
        out.push_str("  (none)\n");
    }
    let m = &spec.meta;
    out.push_str(&format!(
        "\nside effects: {}; confirmation: {}; idempotent: {}; timeout: {}; category: {}\n",
        m.side_effects.as_str(),
        if m.requires_confirmation { "yes" } else { "no" },
        if m.idempotent { "yes" } else { "no" },
        m.timeout_ms
            .map_or_else(|| "default".to_string(), |t| format!("{t} ms")),
        m.category.as_deref().unwrap_or("-"),
    ));
    out
}

/// The definition of `spec` in a provider dialect, its schema's references inlined when asked
/// (a reference that cannot be is warned about on stderr).
pub fn dialect_json(spec: &ToolSpec, dialect: &str, inline_refs: bool) -> Result<Value, String> {
    match dialect {
        "jsonschema" => {
            let mut params = if inline_refs {
                let mut problems = Vec::new();
                let p = toolwright_catalog::schema::inline_refs(&spec.parameters, &mut problems);
                crate::cmd_catalog::warn_ref_problems(&spec.name, &problems);
                p
            } else {
                spec.parameters.clone()
            };
            if let Value::Object(m) = &mut params {
                m.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
            }
            Ok(json!({"name": spec.name, "description": spec.description, "parameters": params, "meta": spec.meta}))
        }
        other => toolwright_catalog::Dialect::parse(other)
            .map(|d| {
                if inline_refs {
                    let (v, problems) = toolwright_catalog::dialect::export_inlined(spec, d);
                    crate::cmd_catalog::warn_ref_problems(&spec.name, &problems);
                    v
                } else {
                    toolwright_catalog::export_dialect(spec, d)
                }
            })
            .ok_or_else(|| format!("unknown dialect `{other}`; use jsonschema, openai, openai-strict, anthropic, gemini or mcp")),
    }
}

/// Runs `tools`.
pub async fn run(args: ToolsArgs, global: &Global) -> i32 {
    let runtime = match build_runtime(global).await {
        Ok(r) => r,
        Err(e) => return usage_error(&e),
    };
    let specs = runtime.registry().specs();
    match args.command {
        ToolsCommand::List {
            format: Format::Json,
        } => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&specs).unwrap_or_default()
            );
            0
        }
        ToolsCommand::List {
            format: Format::Text,
        } => {
            outln!(
                "{:<26} {:<12} {:<10} DESCRIPTION",
                "NAME",
                "EFFECTS",
                "CATEGORY"
            );
            for s in &specs {
                outln!(
                    "{:<26} {:<12} {:<10} {}",
                    s.name,
                    s.meta.side_effects.as_str(),
                    s.meta.category.as_deref().unwrap_or("-"),
                    first_sentence(&s.description)
                );
            }
            0
        }
        ToolsCommand::Show {
            name,
            dialect,
            inline_refs,
            format,
        } => {
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
                let near = toolwright::closest(&name, names.iter().copied(), 3);
                eprintln!(
                    "toolwright: no tool named `{name}`{}",
                    if near.is_empty() {
                        String::new()
                    } else {
                        format!("; did you mean {}?", near.join(" or "))
                    }
                );
                return 1;
            };
            if format == Format::Text {
                use std::io::Write as _;
                let _ = std::io::stdout()
                    .lock()
                    .write_all(spec_text(spec).as_bytes());
                return 0;
            }
            match dialect_json(spec, &dialect, inline_refs) {
                Ok(v) => {
                    outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
                    0
                }
                Err(e) => usage_error(&e),
            }
        }
    }
}
