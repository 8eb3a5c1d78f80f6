//! `toolwright check --functions DEFS.json --calls CALLS.jsonl`: did recorded model calls conform
//! to the definitions they were given?

use crate::output::Format;
use crate::{Global, load_definitions, usage_error};
use clap::Args;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use toolwright::{ArgValidator, ErrorCode, FieldError, Problem, ToolError, closest};

/// `check` arguments.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Tool definitions: an OpenAI tools array, bare {name, description, parameters} objects, or an MCP tools/list result.
    #[arg(long, value_name = "DEFS.json")]
    pub functions: std::path::PathBuf,
    /// Recorded calls, one JSON object {"name": ..., "arguments": {...}} per line (`-` for stdin).
    #[arg(long, value_name = "CALLS.jsonl")]
    pub calls: std::path::PathBuf,
    /// Apply the runtime's lenient coercions and report them (default: strict).
    #[arg(long)]
    pub lenient: bool,
    /// Accept arguments that a definition does not list when it does not forbid them
    /// (default: unknown arguments are errors, as the runtime treats them).
    #[arg(long)]
    pub allow_extra: bool,
    /// Output: `json` (one JSON result per line) or `text` (one line per call for people).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

/// One result as a line for people.
fn result_text(result: &Value) -> String {
    let index = result["index"].as_u64().unwrap_or_default() + 1;
    if result["valid"].as_bool().unwrap_or_default() {
        let coerced = result
            .get("coerced")
            .map(|c| format!(" (coerced: {c})"))
            .unwrap_or_default();
        return format!("line {index}: valid{coerced}");
    }
    let e = &result["error"];
    let code = e["code"].as_str().unwrap_or("INVALID");
    let message = e["message"].as_str().unwrap_or_default();
    format!("line {index}: invalid: {code} {message}")
}

/// Validators for a set of definitions; a definition whose schema does not compile keeps its error.
pub struct Checker {
    validators: HashMap<String, Result<ArgValidator, toolwright_core::SchemaError>>,
    names: Vec<String>,
    lenient: bool,
}

impl Checker {
    /// Builds validators for `specs`.
    pub fn new(specs: &[toolwright::ToolSpec], lenient: bool, allow_extra: bool) -> Self {
        let mut validators = HashMap::new();
        let mut names = Vec::new();
        for s in specs {
            let mut schema = s.parameters.clone();
            if !allow_extra
                && let Value::Object(m) = &mut schema
                && m.get("type").and_then(Value::as_str).unwrap_or("object") == "object"
            {
                m.entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
            if !validators.contains_key(&s.name) {
                names.push(s.name.clone());
            }
            validators.insert(s.name.clone(), ArgValidator::new(&schema));
        }
        Checker {
            validators,
            names,
            lenient,
        }
    }

    /// Checks one JSONL line; `Ok(coercions)` when valid.
    pub fn check_line(&self, line: &str) -> Result<Value, ToolError> {
        let call: Value = serde_json::from_str(line).map_err(|e| {
            ToolError::validation(
                format!("The line is not valid JSON: {e}."),
                "Each line must be one JSON object {\"name\": ..., \"arguments\": {...}}.",
            )
            .with_fields(vec![FieldError::new("", Problem::WrongType, "not JSON")])
        })?;
        let Some(obj) = call.as_object() else {
            return Err(ToolError::validation(
                "The line is not a JSON object.",
                "Each line must be {\"name\": ..., \"arguments\": {...}}.",
            )
            .with_fields(vec![FieldError::new(
                "",
                Problem::WrongType,
                "expected an object",
            )]));
        };
        let f = obj
            .get("function")
            .and_then(Value::as_object)
            .unwrap_or(obj);
        let Some(name) = f.get("name").and_then(Value::as_str) else {
            return Err(ToolError::validation(
                "The call has no `name`.",
                "Give the function name in `name`.",
            )
            .with_fields(vec![FieldError::new(
                "/name",
                Problem::MissingRequired,
                "missing required `name`",
            )]));
        };
        let Some(validator) = self.validators.get(name) else {
            let near = closest(name, self.names.iter().map(String::as_str), 3);
            let suggestion = if near.is_empty() {
                "Call one of the defined functions.".to_string()
            } else {
                format!(
                    "Did you mean {}?",
                    near.iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            };
            let shown: String = name.chars().take(80).collect();
            return Err(ToolError::unknown_tool(
                format!("There is no function named `{shown}`."),
                suggestion,
            ));
        };
        let validator = validator.as_ref().map_err(|e| {
            ToolError::new(
                ErrorCode::Internal,
                format!("The definition of `{name}` has an invalid schema: {e}"),
            )
            .with_suggestion("Fix the definition; calls to it cannot be checked.")
        })?;
        // OpenAI records `arguments` as a JSON string: decode it (that is the wire form, not a coercion).
        let args = match f
            .get("arguments")
            .or_else(|| f.get("args"))
            .or_else(|| f.get("input"))
        {
            None => json!({}),
            Some(Value::String(s)) => serde_json::from_str(s).map_err(|e| {
                ToolError::validation(
                    format!("`arguments` is a string that is not valid JSON: {e}."),
                    "Send the arguments as a JSON object.",
                )
                .with_fields(vec![FieldError::new(
                    "",
                    Problem::WrongType,
                    "the arguments must be a JSON object",
                )])
            })?,
            Some(v) => v.clone(),
        };
        let (_, coerced) = validator.check(args, self.lenient)?;
        Ok(serde_json::to_value(coerced).unwrap_or(Value::Null))
    }
}

/// Runs `check`.
pub async fn run(args: CheckArgs, _global: &Global) -> i32 {
    let specs = match load_definitions(&args.functions) {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    let checker = Checker::new(&specs, args.lenient, args.allow_extra);
    let reader: Box<dyn BufRead> = if args.calls.as_os_str() == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        match std::fs::File::open(&args.calls) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => return usage_error(&format!("cannot read {}: {e}", args.calls.display())),
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut invalid = 0usize;
    for (index, line) in reader.split(b'\n').enumerate() {
        let line = match line {
            Ok(l) => String::from_utf8_lossy(&l).into_owned(),
            Err(e) => return usage_error(&format!("cannot read {}: {e}", args.calls.display())),
        };
        if line.trim().is_empty() {
            continue;
        }
        let result = match checker.check_line(&line) {
            Ok(coerced) if args.lenient && coerced.as_array().is_some_and(|a| !a.is_empty()) => {
                json!({"index": index, "valid": true, "error": null, "coerced": coerced})
            }
            Ok(_) => json!({"index": index, "valid": true, "error": null}),
            Err(e) => {
                invalid += 1;
                json!({"index": index, "valid": false, "error": e})
            }
        };
        let line = match args.format {
            Format::Json => result.to_string(),
            Format::Text => result_text(&result),
        };
        if writeln!(out, "{line}").is_err() {
            return 1;
        }
    }
    let _ = out.flush();
    if invalid > 0 { 1 } else { 0 }
}
