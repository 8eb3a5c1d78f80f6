//! `toolwright call NAME --args JSON [--format json|text]`.

use crate::output::Format;
use crate::{Global, build_runtime, usage_error};
use clap::Args;
use toolwright::{ErrorCode, FieldError, Outcome, Problem, Status, ToolCall, ToolError};
use toolwright_runtime::CallOptions;

/// `call` arguments.
#[derive(Args, Debug)]
pub struct CallArgs {
    /// Tool name.
    pub name: String,
    /// Arguments as a JSON object.
    #[arg(long, default_value = "{}")]
    pub args: String,
    /// Approve a call that needs confirmation (destructive tools).
    #[arg(long)]
    pub approve: bool,
    /// Session id (scopes derived idempotency keys).
    #[arg(long)]
    pub session: Option<String>,
    /// No lenient coercion: the arguments must match the schema exactly.
    #[arg(long)]
    pub strict: bool,
    /// Output: `json` (the envelope, as the model receives it) or `text` (status, message,
    /// error and data for people).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

/// The envelope for people: status and tool, the message, the error with its advice and field
/// problems, and the data.
pub fn envelope_text(o: &Outcome) -> String {
    let mut out = format!(
        "{} {} ({} ms)\n",
        serde_json::to_value(o.status())
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        o.meta.tool,
        o.meta.duration_ms
    );
    if !o.message.is_empty() {
        out.push_str(&format!("{}\n", o.message));
    }
    if let Some(e) = &o.error() {
        out.push_str(&format!("error {}: {}\n", e.code.as_str(), e.message));
        if !e.suggestion.is_empty() {
            out.push_str(&format!("  suggestion: {}\n", e.suggestion));
        }
        for f in &e.fields {
            out.push_str(&format!("  {}: {}\n", f.path, f.message));
        }
    }
    if let Some(d) = &o.data {
        out.push_str(&serde_json::to_string_pretty(d).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// The envelope for arguments that are not JSON at all.
pub fn unparsable_arguments(name: &str, err: &serde_json::Error) -> Outcome {
    let mut e = ToolError::validation(
        format!("The arguments are not valid JSON: {err}."),
        "Pass the arguments as one JSON object, e.g. {\"city\": \"Paris\"}.",
    );
    e.fields = vec![FieldError::new(
        "",
        Problem::WrongType,
        "the arguments must be a JSON object",
    )];
    let mut out = Outcome::from_error(e);
    out.meta.tool = name.into();
    out.meta.attempt = 1;
    out
}

/// Runs `call`.
pub async fn run(args: CallArgs, global: &Global) -> i32 {
    let runtime = match build_runtime(global).await {
        Ok(r) => r,
        Err(e) => return usage_error(&e),
    };
    let outcome = match serde_json::from_str::<serde_json::Value>(&args.args) {
        Ok(value) => {
            let opts = CallOptions {
                approved: args.approve,
                session_id: args.session.clone(),
                strict: args.strict,
                ..CallOptions::default()
            };
            let call = ToolCall::new("cli-1", args.name.clone(), value);
            crate::runtime_cli::invoke_with_prompt(&runtime, call, &opts).await
        }
        Err(e) => unparsable_arguments(&args.name, &e),
    };
    match args.format {
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&outcome).unwrap_or_default()
        ),
        Format::Text => {
            use std::io::Write as _;
            let _ = std::io::stdout()
                .lock()
                .write_all(envelope_text(&outcome).as_bytes());
        }
    }
    match outcome.status() {
        Status::Error => {
            if outcome.error_code() == Some(ErrorCode::Internal) {
                eprintln!(
                    "toolwright: the tool failed internally; run with TOOLWRIGHT_LOG=debug for details"
                );
            }
            1
        }
        _ => 0,
    }
}
