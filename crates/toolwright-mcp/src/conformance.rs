//! The fixture tools of the official MCP conformance suite (`toolwright serve --toolset
//! conformance`), with the names, schemas and answers the suite expects (the executable spec is
//! `reference-server.mjs` of the suite runner).
//!
//! They answer with raw MCP content ([`crate::raw_content`]) because the suite checks content
//! blocks; `test_error_handling` fails with an ordinary error envelope (`isError: true`).
//! Progress, logging, sampling and elicitation go through [`crate::notify`].
//!
//! ```
//! let reg = toolwright_mcp::conformance::registry().unwrap();
//! assert!(reg.get("test_tool_with_progress").is_some());
//! ```

use crate::convert::raw_content;
use crate::notify;
use serde_json::{Value, json};
use std::time::Duration;
use toolwright_core::{
    ErrorCode, FnTool, Registry, RegistryError, SideEffects, ToolContext, ToolError, ToolOutput,
    ToolResult, ToolSpec,
};

/// A 1×1 red PNG.
pub const PNG_1PX: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny silent WAV (44-byte header and two samples).
pub const WAV_TINY: &str = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAAAAAA";

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

fn text(t: impl Into<String>) -> ToolResult {
    Ok(ToolOutput::Outcome(raw_content(vec![
        json!({"type": "text", "text": t.into()}),
    ])))
}

fn blocks(b: Vec<Value>) -> ToolResult {
    Ok(ToolOutput::Outcome(raw_content(b)))
}

fn spec(name: &str, description: &str, params: Value) -> ToolSpec {
    ToolSpec::new(name, description, params).side_effects(SideEffects::None)
}

async fn sleep_ms(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// Sends an elicitation request and renders the answer like the reference server.
async fn elicit(ctx: &ToolContext, message: &str, schema: Value, prefix: &str) -> ToolResult {
    let r = notify::client_request(
        ctx,
        "elicitation/create",
        json!({"message": message, "requestedSchema": schema}),
    )
    .await?;
    let action = r.get("action").and_then(Value::as_str).unwrap_or("unknown");
    let content = r.get("content").cloned().unwrap_or_else(|| json!({}));
    text(format!("{prefix}: action={action}, content={content}"))
}

/// The conformance fixture tools.
///
/// # Errors
/// Never in practice (the names and schemas are valid).
pub fn registry() -> Result<Registry, RegistryError> {
    let reg = Registry::new();
    register_all(&reg)?;
    Ok(reg)
}

/// Registers the conformance fixture tools into `reg`.
///
/// # Errors
/// A name clash with a tool already in `reg`.
pub fn register_all(reg: &Registry) -> Result<(), RegistryError> {
    register_content_tools(reg)?;
    register_notifying_and_failing_tools(reg)?;
    register_client_request_tools(reg)?;
    register_schema_and_reconnection_tools(reg)?;
    Ok(())
}

/// Registers the tools that answer with fixed content blocks: text, an image, audio, an
/// embedded resource, and the three mixed.
fn register_content_tools(reg: &Registry) -> Result<(), RegistryError> {
    reg.register(FnTool::new(
        spec("test_simple_text", "Returns simple text", no_args()),
        |_, _| async { text("This is a simple text response for testing.") },
    ))?;
    reg.register(FnTool::new(
        spec("test_image_content", "Returns a PNG image", no_args()),
        |_, _| async {
            blocks(vec![
                json!({"type": "image", "data": PNG_1PX, "mimeType": "image/png"}),
            ])
        },
    ))?;
    reg.register(FnTool::new(
        spec("test_audio_content", "Returns WAV audio", no_args()),
        |_, _| async {
            blocks(vec![
                json!({"type": "audio", "data": WAV_TINY, "mimeType": "audio/wav"}),
            ])
        },
    ))?;
    reg.register(FnTool::new(
        spec(
            "test_embedded_resource",
            "Returns an embedded resource",
            no_args(),
        ),
        |_, _| async {
            blocks(vec![json!({"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content."}})])
        },
    ))?;
    reg.register(FnTool::new(
        spec(
            "test_multiple_content_types",
            "Returns text, image and resource",
            no_args(),
        ),
        |_, _| async {
            blocks(vec![
                json!({"type": "text", "text": "Multiple content types test:"}),
                json!({"type": "image", "data": PNG_1PX, "mimeType": "image/png"}),
                json!({"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                    "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}),
            ])
        },
    ))?;
    Ok(())
}

/// Registers the tools that send log and progress notifications while they run, and the one
/// that always fails.
fn register_notifying_and_failing_tools(reg: &Registry) -> Result<(), RegistryError> {
    reg.register(FnTool::new(
        spec(
            "test_tool_with_logging",
            "Sends 3 log notifications",
            no_args(),
        ),
        |_, ctx| async move {
            notify::log(&ctx, "info", json!("Tool execution started"));
            sleep_ms(50).await;
            notify::log(&ctx, "info", json!("Tool processing data"));
            sleep_ms(50).await;
            notify::log(&ctx, "info", json!("Tool execution completed"));
            text("Logging test completed")
        },
    ))?;
    reg.register(FnTool::new(
        spec(
            "test_tool_with_progress",
            "Reports progress 0/50/100",
            no_args(),
        ),
        |_, ctx| async move {
            for p in [0.0, 50.0, 100.0] {
                notify::progress(&ctx, p, Some(100.0), None);
                if p < 100.0 {
                    sleep_ms(50).await;
                }
            }
            text("Progress test completed")
        },
    ))?;
    reg.register(FnTool::new(
        spec("test_error_handling", "Always fails", no_args()),
        |_, _| async {
            Err(ToolError::new(
                ErrorCode::Internal,
                "This tool intentionally returns an error for testing",
            )
            .with_retryable(false))
        },
    ))?;
    Ok(())
}

/// Registers the tools that ask the client something: an LLM sample, and user input
/// (elicitation) plain, with defaults (SEP-1034) and with enum variants (SEP-1330).
fn register_client_request_tools(reg: &Registry) -> Result<(), RegistryError> {
    reg.register(FnTool::new(
        spec(
            "test_sampling",
            "Asks the client to sample an LLM",
            json!({"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}),
        ),
        |args, ctx| async move {
            let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default().to_string();
            let r = notify::client_request(
                &ctx,
                "sampling/createMessage",
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                       "maxTokens": 100}),
            )
            .await?;
            let content = r.get("content").cloned().unwrap_or(Value::Null);
            let out = match content.get("type").and_then(Value::as_str) {
                Some("text") => content.get("text").and_then(Value::as_str).unwrap_or_default().to_string(),
                _ => content.to_string(),
            };
            text(format!("LLM response: {out}"))
        },
    ))?;
    reg.register(FnTool::new(
        spec(
            "test_elicitation",
            "Asks the client for user input",
            json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}),
        ),
        |args, ctx| async move {
            let message = args.get("message").and_then(Value::as_str).unwrap_or_default().to_string();
            let schema = json!({"type": "object", "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}},
                "required": ["username", "email"]});
            elicit(&ctx, &message, schema, "User response").await
        },
    ))?;
    reg.register(FnTool::new(
        spec("test_elicitation_sep1034_defaults", "Elicitation with defaults", no_args()),
        |_, ctx| async move {
            let schema = json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {"type": "string", "description": "User status",
                           "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "description": "Verification status", "default": true}},
                "required": []});
            elicit(&ctx, "Please review and update the form fields with defaults", schema, "Elicitation completed").await
        },
    ))?;
    reg.register(FnTool::new(
        spec("test_elicitation_sep1330_enums", "Elicitation with enum variants", no_args()),
        |_, ctx| async move {
            let schema = json!({"type": "object", "properties": {
                "untitledSingle": {"type": "string", "description": "Untitled single-select",
                                   "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "description": "Titled single-select", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}]},
                "legacyEnum": {"type": "string", "description": "Legacy titled enum",
                               "enum": ["opt1", "opt2", "opt3"],
                               "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "description": "Untitled multi-select",
                                  "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "description": "Titled multi-select", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}]}}},
                "required": []});
            elicit(&ctx, "Please select options from the enum fields", schema, "Elicitation completed").await
        },
    ))?;
    Ok(())
}

/// Registers the tool with a JSON Schema 2020-12 input schema and the reconnection tool.
fn register_schema_and_reconnection_tools(reg: &Registry) -> Result<(), RegistryError> {
    reg.register(FnTool::new(
        spec(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"type": "object", "properties": {
                    "street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                "additionalProperties": false
            }),
        ),
        |args, _| async move { text(format!("Received: {args}")) },
    ))?;
    // The reference closes the SSE stream mid-call when its transport allows (SEP-1699). rmcp
    // gives a handler no way to close its own request's stream, so this completes on the open
    // stream, as the reference does over transports that cannot close it.
    reg.register(FnTool::new(
        spec(
            "test_reconnection",
            "Completes after 200 ms (does not close the SSE stream mid-call: rmcp offers no way to)",
            no_args(),
        ),
        |_, _| async {
            sleep_ms(200).await;
            text("Reconnection test completed successfully")
        },
    ))?;
    Ok(())
}
