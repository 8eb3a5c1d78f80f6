//! Conversions between toolwright types and MCP messages.
//!
//! The public functions speak JSON (the MCP wire shapes); the `pub(crate)` ones produce rmcp
//! types, and this is the only module that builds rmcp model values, so a rename in rmcp stays
//! here.

use serde_json::{Map, Value, json};
use toolwright_core::{ErrorCode, Outcome, SideEffects, Status, ToolError, ToolMeta, ToolSpec};

/// The reserved key of a result that carries raw MCP content blocks instead of an envelope.
///
/// A tool whose `data` is exactly `{"_mcp_content": [blocks…]}` is answered over MCP with those
/// content blocks (text, image, audio, resource) as they are; every other result is answered
/// with the envelope. Build it with [`raw_content`].
pub const RAW_CONTENT_KEY: &str = "_mcp_content";

/// A success outcome that the MCP server answers with `blocks` as its `content`.
///
/// ```
/// let out = toolwright_mcp::raw_content(vec![serde_json::json!({"type": "text", "text": "hi"})]);
/// assert_eq!(out.data.unwrap()["_mcp_content"][0]["text"], "hi");
/// ```
pub fn raw_content(blocks: Vec<Value>) -> Outcome {
    let mut data = Map::new();
    data.insert(RAW_CONTENT_KEY.to_string(), Value::Array(blocks));
    Outcome::success(Value::Object(data))
}

/// The raw content blocks of `out`, when its data has the reserved shape.
pub(crate) fn raw_blocks(out: &Outcome) -> Option<&Vec<Value>> {
    let obj = out.data.as_ref()?.as_object()?;
    if obj.len() != 1 {
        return None;
    }
    obj.get(RAW_CONTENT_KEY)?.as_array()
}

/// The text rendering of an envelope sent next to `structuredContent` (compact JSON, as the MCP
/// specification recommends for clients that only read text).
pub fn envelope_text(out: &Outcome) -> String {
    // The envelope's own writer: byte for byte serde's output, about a third of the work.
    out.to_json_string()
        .unwrap_or_else(|_| out.message.to_string())
}

/// The MCP `tools/list` entry of `spec`: the schema passed through unchanged as `inputSchema`,
/// `title` from the display label, annotations from the metadata, and `outputSchema` (the
/// envelope's schema, `data` typed) when the tool has an output schema.
///
/// ```
/// use toolwright_core::{SideEffects, ToolSpec};
/// let spec = ToolSpec::new("delete_file", "Delete a file.", serde_json::json!({"type": "object"}))
///     .side_effects(SideEffects::Destructive);
/// let t = toolwright_mcp::tool_json(&spec);
/// assert_eq!(t["annotations"]["readOnlyHint"], false);
/// assert_eq!(t["annotations"]["destructiveHint"], true);
/// ```
pub fn tool_json(spec: &ToolSpec) -> Value {
    let read_only = spec.meta.side_effects.is_read_only();
    let mut annotations = Map::new();
    if let Some(label) = &spec.meta.display_label {
        annotations.insert("title".into(), json!(label));
    }
    annotations.insert("readOnlyHint".into(), json!(read_only));
    annotations.insert(
        "destructiveHint".into(),
        json!(spec.needs_confirmation() || spec.meta.side_effects == SideEffects::Destructive),
    );
    annotations.insert(
        "idempotentHint".into(),
        json!(read_only || spec.meta.idempotent),
    );
    let mut tool = Map::new();
    tool.insert("name".into(), json!(spec.name));
    if let Some(label) = &spec.meta.display_label {
        tool.insert("title".into(), json!(label));
    }
    tool.insert("description".into(), json!(spec.description));
    let schema = match &spec.parameters {
        Value::Object(_) => spec.parameters.clone(),
        // MCP requires an object schema; a tool without parameters takes an empty object.
        _ => json!({"type": "object", "properties": {}}),
    };
    tool.insert("inputSchema".into(), schema);
    if let Some(out) = output_schema(spec) {
        tool.insert("outputSchema".into(), Value::Object(out));
    }
    tool.insert("annotations".into(), Value::Object(annotations));
    Value::Object(tool)
}

/// The MCP `outputSchema` of `spec`: the envelope's schema with `data` typed by the tool's
/// output schema, since `structuredContent` is the envelope
/// ([`toolwright_core::schema::envelope_schema`]). `None` for a tool without an output schema.
fn output_schema(spec: &ToolSpec) -> Option<Map<String, Value>> {
    let data = spec.output_schema.as_ref()?;
    match toolwright_core::schema::envelope_schema(data) {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// The `tools/call` result for an envelope: raw content blocks when the tool produced them,
/// otherwise the envelope as `structuredContent` plus its text rendering; `isError` exactly when
/// the status is `error`.
pub(crate) fn result_json(out: &Outcome) -> Value {
    let is_error = out.status() == Status::Error;
    if let Some(blocks) = raw_blocks(out) {
        return json!({"content": blocks, "isError": is_error});
    }
    json!({
        "content": [{"type": "text", "text": envelope_text(out)}],
        "structuredContent": out.to_json(),
        "isError": is_error,
    })
}

/// [`result_json`] as rmcp's type, built directly: the envelope is serialized once (its text
/// block), and `structuredContent` takes the outcome's fields by move instead of a second
/// serialization into a JSON tree.
pub(crate) fn to_call_result(out: Outcome) -> rmcp::model::CallToolResult {
    if raw_blocks(&out).is_some() {
        return match serde_json::from_value(result_json(&out)) {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "tool result is not a valid MCP result");
                let fallback =
                    Outcome::from_error(ToolError::internal(format!("invalid MCP content: {e}")));
                rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                    envelope_text(&fallback),
                )])
            }
        };
    }
    let is_error = out.status() == Status::Error;
    let text = envelope_text(&out);
    let mut result =
        rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]);
    result.structured_content = Some(into_json(out));
    result.is_error = Some(is_error);
    result
}

/// [`Outcome::to_json`] without copying: the message, data and instruction move into the tree,
/// in the field order (and with the omissions) of `Outcome`'s serialization.
fn into_json(out: Outcome) -> Value {
    let status = out.status();
    // The error serializes from a borrow just as from a value; the rest moves.
    let error = out
        .error()
        .map(|e| serde_json::to_value(e).unwrap_or(Value::Null));
    let Outcome {
        message,
        data,
        instruction,
        meta,
        ..
    } = out;
    let mut m = Map::with_capacity(6);
    m.insert("status".into(), Value::String(status.as_str().into()));
    m.insert("message".into(), Value::String(message.into()));
    if let Some(d) = data {
        m.insert("data".into(), d);
    }
    if let Some(i) = instruction {
        m.insert("instruction".into(), Value::String(i));
    }
    if let Some(e) = error {
        m.insert("error".into(), e);
    }
    m.insert("meta".into(), meta.to_json_value());
    Value::Object(m)
}

/// [`tool_json`] as rmcp's type, built directly (the schema is copied once, no JSON round
/// trip). `None` is never returned today; the `Option` keeps the signature of a fallible
/// conversion.
pub(crate) fn to_mcp_tool(spec: &ToolSpec) -> Option<rmcp::model::Tool> {
    let read_only = spec.meta.side_effects.is_read_only();
    let mut annotations = match &spec.meta.display_label {
        Some(label) => rmcp::model::ToolAnnotations::with_title(label.clone()),
        None => rmcp::model::ToolAnnotations::new(),
    };
    annotations = annotations
        .read_only(read_only)
        .destructive(
            spec.needs_confirmation() || spec.meta.side_effects == SideEffects::Destructive,
        )
        .idempotent(read_only || spec.meta.idempotent);
    let schema = match &spec.parameters {
        Value::Object(m) => m.clone(),
        // MCP requires an object schema; a tool without parameters takes an empty object.
        _ => {
            let mut m = Map::new();
            m.insert("type".into(), json!("object"));
            m.insert("properties".into(), json!({}));
            m
        }
    };
    let mut tool = rmcp::model::Tool::new(spec.name.clone(), spec.description.clone(), schema)
        .with_annotations(annotations);
    if let Some(out) = output_schema(spec) {
        tool = tool.with_raw_output_schema(std::sync::Arc::new(out));
    }
    if let Some(label) = &spec.meta.display_label {
        tool = tool.with_title(label.clone());
    }
    Some(tool)
}

/// A [`ToolSpec`] for a tool an MCP server lists (`def` is its `tools/list` entry), registered
/// under `name`: the schema is kept, `title` becomes the display label, and the annotations
/// decide the side effects (`readOnlyHint: true` → read; `destructiveHint: true` → destructive,
/// which needs confirmation; otherwise write, i.e. side-effecting). The category is `mcp`;
/// [`McpConnection::import`](crate::McpConnection::import) also sets `meta.server` to the
/// server's `serverInfo.name`, which routing reads with the tool's own words.
///
/// ```
/// let def = serde_json::json!({"name": "add", "description": "Add two numbers",
///     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}}});
/// let spec = toolwright_mcp::spec_from_mcp_tool(&def, "add", 30_000);
/// assert_eq!(spec.meta.side_effects, toolwright_core::SideEffects::Write);
/// ```
pub fn spec_from_mcp_tool(def: &Value, name: &str, timeout_ms: u64) -> ToolSpec {
    let description = def
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let parameters = match def.get("inputSchema") {
        Some(s @ Value::Object(_)) => s.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    let ann = def.get("annotations");
    let hint = |key: &str| ann.and_then(|a| a.get(key)).and_then(Value::as_bool);
    let side_effects = if hint("readOnlyHint") == Some(true) {
        SideEffects::Read
    } else if hint("destructiveHint") == Some(true) {
        SideEffects::Destructive
    } else {
        SideEffects::Write
    };
    let title = def
        .get("title")
        .or_else(|| ann.and_then(|a| a.get("title")))
        .and_then(Value::as_str)
        .map(String::from);
    let meta = ToolMeta {
        display_label: title,
        timeout_ms: Some(timeout_ms),
        side_effects,
        idempotent: hint("idempotentHint") == Some(true),
        category: Some("mcp".to_string()),
        ..ToolMeta::default()
    };
    ToolSpec::new(name, description, parameters)
        .with_meta(meta)
        .with_output_schema(remote_output_schema(def))
}

/// The schema of `data` for a remote tool: its `outputSchema` (what its `structuredContent`
/// holds, which becomes the envelope's `data`), or, when the server is a toolwright server whose
/// `outputSchema` is the whole envelope's ([`toolwright_core::schema::envelope_schema`]), the
/// `data` schema inside it, with the envelope's `$defs` so that its references resolve.
fn remote_output_schema(def: &Value) -> Option<Value> {
    let schema = def.get("outputSchema").filter(|s| s.is_object())?;
    let is_envelope = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| {
            ["status", "message", "meta"]
                .iter()
                .all(|k| p.contains_key(*k))
        });
    let data = schema.pointer("/then/properties/data");
    let (true, Some(data)) = (is_envelope, data) else {
        return Some(schema.clone());
    };
    let mut data = data.clone();
    if let Value::Object(m) = &mut data {
        if let Some(defs) = schema.get("$defs") {
            m.entry("$defs").or_insert_with(|| defs.clone());
        }
        // A recursive data schema is a `$ref` into those `$defs`; it is still an object.
        if m.contains_key("$ref") {
            m.entry("type").or_insert_with(|| json!("object"));
        }
    }
    Some(data)
}

/// Whether `v` has the shape of a toolwright envelope (a toolwright server on the other side).
fn looks_like_envelope(v: &Value) -> bool {
    let status_ok = matches!(
        v.get("status").and_then(Value::as_str),
        Some("success" | "partial" | "error" | "needs_confirmation")
    );
    status_ok
        && v.get("message").is_some_and(Value::is_string)
        && v.get("meta").is_some_and(Value::is_object)
}

/// Longest message taken from a remote error text.
const MAX_MESSAGE_CHARS: usize = 2000;

/// The envelope for a `tools/call` result of a remote MCP server (`result` is its JSON).
///
/// A result that already carries a toolwright envelope as `structuredContent` is used as is;
/// `isError: true` becomes an error whose message is the server's text; a success keeps
/// `structuredContent` as `data`, else the text (`{"text": …}`), else the content blocks
/// (`{"content": […]}`).
pub(crate) fn outcome_from_result(result: &Value) -> Outcome {
    let structured = result.get("structuredContent").filter(|v| !v.is_null());
    if let Some(s) = structured
        && looks_like_envelope(s)
        && let Ok(out) = serde_json::from_value::<Outcome>(s.clone())
    {
        return out;
    }
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let blocks: Vec<Value> = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let all_text = texts.len() == blocks.len();
    let text = texts.join("\n");
    if is_error {
        let message = if text.trim().is_empty() {
            "The MCP tool reported an error without a message.".to_string()
        } else {
            text.chars().take(MAX_MESSAGE_CHARS).collect()
        };
        let err = ToolError::new(ErrorCode::Internal, message)
            .with_suggestion(
                "The MCP server reported this error: read the message; retry with different \
                 arguments only if it points at them, otherwise tell the user.",
            )
            .with_retryable(false);
        return Outcome::from_error(err);
    }
    let data = match structured {
        Some(s) => s.clone(),
        None if all_text => json!({"text": text}),
        None => json!({"content": blocks}),
    };
    Outcome::success(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_output_schema_types_data_and_a_toolwright_envelope_is_unwrapped() {
        let plain = json!({"type": "object", "properties": {"sum": {"type": "number"}}});
        let def = json!({"name": "add", "inputSchema": {"type": "object"}, "outputSchema": plain});
        assert_eq!(
            spec_from_mcp_tool(&def, "add", 1).output_schema,
            Some(plain.clone())
        );

        // A toolwright server's outputSchema is the envelope's: `data` is taken out of it.
        let data = json!({"type": "object", "properties": {"d": {"$ref": "#/$defs/D"}},
                          "$defs": {"D": {"type": "string"}}});
        let env = toolwright_core::schema::envelope_schema(&data);
        let def = json!({"name": "t", "outputSchema": env});
        assert_eq!(spec_from_mcp_tool(&def, "t", 1).output_schema, Some(data));

        // A recursive data schema is a reference into the envelope's `$defs`.
        let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}});
        let def =
            json!({"name": "t", "outputSchema": toolwright_core::schema::envelope_schema(&tree)});
        let got = spec_from_mcp_tool(&def, "t", 1).output_schema.unwrap();
        assert_eq!(got["type"], "object");
        assert!(
            got["$ref"].as_str().unwrap().starts_with("#/$defs/"),
            "{got:#}"
        );

        // No schema, or one that is not an object schema (MCP requires one), gives none.
        let def = json!({"name": "t", "outputSchema": {"type": "string"}});
        assert_eq!(spec_from_mcp_tool(&def, "t", 1).output_schema, None);
        assert_eq!(
            spec_from_mcp_tool(&json!({"name": "t"}), "t", 1).output_schema,
            None
        );
    }

    #[test]
    fn envelope_goes_to_structured_content_and_error_sets_is_error() {
        let ok = Outcome::success(json!({"x": 1}));
        let r = result_json(&ok);
        assert_eq!(r["isError"], false);
        assert_eq!(r["structuredContent"]["data"]["x"], 1);
        let text = r["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap()["status"],
            "success"
        );

        let err = Outcome::from_error(ToolError::not_found("No such city.", "Try Paris."));
        let r = result_json(&err);
        assert_eq!(r["isError"], true);
        assert_eq!(r["structuredContent"]["error"]["code"], "NOT_FOUND");
        let typed = to_call_result(err.clone());
        assert_eq!(typed.is_error, Some(true));
    }

    #[test]
    fn raw_content_is_passed_as_blocks() {
        let out = raw_content(vec![
            json!({"type": "image", "data": "AAA=", "mimeType": "image/png"}),
        ]);
        let r = result_json(&out);
        assert!(r.get("structuredContent").is_none());
        assert_eq!(r["content"][0]["type"], "image");
        let typed = to_call_result(out.clone());
        assert_eq!(typed.content.len(), 1);
        // A data object with more keys is an ordinary result.
        let normal = Outcome::success(json!({RAW_CONTENT_KEY: [], "other": 1}));
        assert!(raw_blocks(&normal).is_none());
    }

    #[test]
    fn schema_passes_through_unchanged_with_annotations() {
        let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "$defs": {"a": {"type": "string"}},
            "properties": {"x": {"$ref": "#/$defs/a"}}, "additionalProperties": false});
        let spec = ToolSpec::new("t", "d", schema.clone()).side_effects(SideEffects::Read);
        let t = tool_json(&spec);
        assert_eq!(t["inputSchema"], schema);
        assert_eq!(t["annotations"]["readOnlyHint"], true);
        assert_eq!(t["annotations"]["destructiveHint"], false);
        let typed = to_mcp_tool(&spec).unwrap();
        let back = serde_json::to_value(&typed).unwrap();
        assert_eq!(back["inputSchema"], schema);
    }

    #[test]
    fn typed_conversions_match_the_json_shapes() {
        let specs = [
            ToolSpec::new(
                "a",
                "d",
                json!({"type": "object", "properties": {"x": {"type": "integer"}}}),
            )
            .side_effects(SideEffects::Read),
            ToolSpec::new("b", "", Value::Null).side_effects(SideEffects::Destructive),
            ToolSpec::new("c", "write", json!({"type": "object"})).with_meta(ToolMeta {
                display_label: Some("Cee".into()),
                idempotent: true,
                ..ToolMeta::default()
            }),
        ];
        for spec in &specs {
            let typed = serde_json::to_value(to_mcp_tool(spec).unwrap()).unwrap();
            assert_eq!(typed, tool_json(spec), "{}", spec.name);
        }
        let outs = [
            Outcome::success(json!({"x": [1, 2.5, "s"]})),
            Outcome::from_error(ToolError::validation("bad", "fix")),
        ];
        for out in &outs {
            let typed = serde_json::to_value(to_call_result(out.clone())).unwrap();
            let mut want = result_json(out);
            // rmcp adds the SEP-2322 result type; the server drops it for older peers.
            if let (Value::Object(t), Value::Object(w)) = (&typed, &mut want)
                && let Some(rt) = t.get("resultType")
            {
                w.insert("resultType".into(), rt.clone());
            }
            assert_eq!(typed, want);
        }
    }

    /// The moved tree is exactly the serialized envelope, for every shape an outcome takes.
    #[test]
    fn into_json_matches_the_serialized_envelope() {
        let mut truncated = Outcome::partial(json!({"items": [1, 2]}), "cut")
            .with_instruction("Narrow the request.");
        truncated.meta.truncated = Some(toolwright_core::Truncation {
            total: 10,
            showing: 2,
            path: "/items".into(),
        });
        truncated.meta.retries = 2;
        truncated.meta.tool = "t".into();
        let outs = [
            Outcome::success(json!({"x": [1, 2.5, "s"], "y": null})),
            Outcome::success(Value::Null),
            Outcome::from_error(ToolError::validation("bad", "fix")),
            Outcome::needs_confirmation(json!({"delete": "a.txt"}), "ap-1"),
            truncated,
        ];
        for out in outs {
            let want = out.to_json();
            assert_eq!(
                serde_json::to_string(&into_json(out)).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
        }
    }

    #[test]
    fn remote_results_become_envelopes() {
        let err = outcome_from_result(&json!({"isError": true,
            "content": [{"type": "text", "text": "boom"}]}));
        assert_eq!(err.status(), Status::Error);
        assert_eq!(err.message, "boom");
        let ok = outcome_from_result(&json!({"content": [{"type": "text", "text": "5"}]}));
        assert_eq!(ok.data.unwrap()["text"], "5");
        let img = outcome_from_result(
            &json!({"content": [{"type": "image", "data": "A", "mimeType": "image/png"}]}),
        );
        assert_eq!(img.data.unwrap()["content"][0]["type"], "image");
        let env = Outcome::from_error(ToolError::validation("bad", "fix"));
        let adopted = outcome_from_result(&result_json(&env));
        assert_eq!(adopted.error_code(), Some(ErrorCode::Validation));
    }

    #[test]
    fn annotations_decide_side_effects() {
        let def = |ann: Value| json!({"name": "x", "inputSchema": {"type": "object"}, "annotations": ann});
        assert_eq!(
            spec_from_mcp_tool(&def(json!({"readOnlyHint": true})), "x", 1)
                .meta
                .side_effects,
            SideEffects::Read
        );
        let d = spec_from_mcp_tool(&def(json!({"destructiveHint": true})), "x", 1);
        assert!(d.needs_confirmation());
        let w = spec_from_mcp_tool(&def(json!({})), "x", 1);
        assert_eq!(w.meta.side_effects, SideEffects::Write);
        assert!(!w.meta.side_effects.is_read_only());
    }
}
