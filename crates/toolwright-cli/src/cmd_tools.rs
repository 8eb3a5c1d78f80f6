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
        /// Provider dialect of the definition.
        #[arg(long, default_value = "jsonschema")]
        dialect: String,
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

/// The definition of `spec` in a provider dialect.
pub fn dialect_json(spec: &ToolSpec, dialect: &str) -> Result<Value, String> {
    match dialect {
        "jsonschema" => {
            let mut params = spec.parameters.clone();
            if let Value::Object(m) = &mut params {
                m.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
            }
            Ok(json!({"name": spec.name, "description": spec.description, "parameters": params, "meta": spec.meta}))
        }
        other => toolwright_catalog::Dialect::parse(other)
            .map(|d| toolwright_catalog::export_dialect(spec, d))
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
        ToolsCommand::Show { name, dialect } => {
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
            match dialect_json(spec, &dialect) {
                Ok(v) => {
                    outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
                    0
                }
                Err(e) => usage_error(&e),
            }
        }
    }
}
