//! Anthropic Messages with `tool_use` / `tool_result` blocks (`is_error` set from the envelope).

use super::ReplyError;
use crate::http::{Http, HttpConfig};
use crate::message::{Reply, Role, Usage};
use crate::provider::{Provider, ProviderError, ProviderInfo, Secret, Turn};
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};
use std::collections::HashMap;
use toolwright_catalog::Dialect;
use toolwright_core::ToolCall;

/// The default base URL.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// The default model.
pub const ANTHROPIC_DEFAULT_MODEL: &str = "claude-haiku-4-5";
/// The API version header value.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Settings of the Anthropic Messages API.
#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    /// Base URL (the provider appends `/v1/messages`).
    pub base_url: String,
    /// The key (`x-api-key`).
    pub api_key: Secret,
    /// Model name.
    pub model: String,
    /// Most tokens generated per turn (required by the API).
    pub max_tokens: u32,
    /// Timeouts and retries.
    pub http: HttpConfig,
}

impl AnthropicConfig {
    /// A config with default URL, limits and timeouts.
    pub fn new(api_key: Secret, model: impl Into<String>) -> Self {
        AnthropicConfig {
            base_url: ANTHROPIC_BASE_URL.to_string(),
            api_key,
            model: model.into(),
            max_tokens: 2048,
            http: HttpConfig::default(),
        }
    }
}

/// The Anthropic provider.
#[derive(Debug)]
pub struct AnthropicProvider {
    config: AnthropicConfig,
    http: Http,
}

impl AnthropicProvider {
    /// A provider for `config`.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn new(config: AnthropicConfig) -> Result<Self, ProviderError> {
        let http = Http::new("anthropic", config.http.clone())?;
        Ok(AnthropicProvider { config, http })
    }

    /// The request body for a turn, and the map from wire tool names back to ours.
    pub fn request_body(&self, turn: &Turn<'_>) -> (Value, HashMap<String, String>) {
        let (tools, names) = super::export_tools(turn.tools, Dialect::Anthropic, "/name");
        let wire_name = |n: &str| super::wire_name(&names, n);
        let mut system = Vec::new();
        // Consecutive messages of one role are merged: tool results go in one user message.
        let mut out: Vec<(String, Vec<Value>)> = Vec::new();
        for m in turn.messages {
            let (role, blocks) = match m.role {
                Role::System => {
                    system.push(m.content.clone());
                    continue;
                }
                Role::User => ("user", vec![json!({"type": "text", "text": m.content})]),
                Role::Tool => (
                    "user",
                    vec![json!({
                        "type": "tool_result",
                        "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                        "content": m.content,
                        "is_error": m.is_error,
                    })],
                ),
                Role::Assistant => {
                    let mut b = Vec::new();
                    if !m.content.trim().is_empty() {
                        b.push(json!({"type": "text", "text": m.content}));
                    }
                    for c in &m.tool_calls {
                        let input = match &c.arguments {
                            Value::Object(o) => Value::Object(o.clone()),
                            // Raw text the model sent: Anthropic wants an object; keep the text visible.
                            Value::String(raw) => json!({"_raw": raw}),
                            _ => json!({}),
                        };
                        b.push(json!({"type": "tool_use", "id": c.id, "name": wire_name(&c.name), "input": input}));
                    }
                    if b.is_empty() {
                        b.push(json!({"type": "text", "text": "(no answer)"}));
                    }
                    ("assistant", b)
                }
            };
            match out.last_mut() {
                Some((r, existing)) if r == role => existing.extend(blocks),
                _ => out.push((role.to_string(), blocks)),
            }
        }
        let messages: Vec<Value> = out
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect();
        let mut body = json!({
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "messages": messages,
        });
        if let Some(o) = body.as_object_mut() {
            if !system.is_empty() {
                o.insert("system".into(), json!(system.join("\n\n")));
            }
            if !tools.is_empty() {
                o.insert("tools".into(), Value::Array(tools));
            }
        }
        (body, names)
    }
}

/// Parses a Messages response into a [`Reply`].
///
/// # Errors
/// The body does not have the Messages shape.
pub fn parse_response(body: &Value, names: &HashMap<String, String>) -> Result<Reply, ReplyError> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or(ReplyError::Missing("content array"))?;
    let mut text = Vec::new();
    let mut calls = Vec::new();
    for (i, block) in content.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    text.push(t.to_string());
                }
            }
            Some("tool_use") => {
                let wire = block.get("name").and_then(Value::as_str).ok_or_else(|| {
                    ReplyError::call_incomplete(format!("content[{i}] (tool_use)"), "name")
                })?;
                let id = block
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("toolu_{i}"), String::from);
                let arguments = match block.get("input") {
                    Some(Value::Object(o)) => Value::Object(o.clone()),
                    Some(Value::String(s)) => serde_json::from_str::<Value>(s)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| Value::String(s.clone())),
                    None | Some(Value::Null) => json!({}),
                    Some(other) => Value::String(other.to_string()),
                };
                let name = names.get(wire).cloned().unwrap_or_else(|| wire.to_string());
                calls.push(ToolCall::new(id, name, arguments));
            }
            _ => {} // thinking and other blocks are not part of the answer
        }
    }
    let joined = text.join("\n").trim().to_string();
    let usage = body.get("usage").map(|u| Usage {
        input_tokens: u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0),
    });
    Ok(Reply {
        text: (!joined.is_empty()).then_some(joined),
        tool_calls: calls,
        usage,
        model: body
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_string),
        ..Reply::default()
    })
}

impl Provider for AnthropicProvider {
    fn name(&self) -> String {
        format!("anthropic:{}", self.config.model)
    }

    fn info(&self) -> ProviderInfo {
        ProviderInfo::new("anthropic", Some(self.config.model.clone()))
            .with_server_url(&self.config.base_url)
    }

    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let (body, names) = self.request_body(&turn);
            let mut headers = HeaderMap::new();
            let mut key = HeaderValue::from_str(self.config.api_key.expose()).map_err(|_| {
                ProviderError::Config(
                    "the API key contains characters not allowed in a header".into(),
                )
            })?;
            key.set_sensitive(true);
            headers.insert("x-api-key", key);
            headers.insert(
                "anthropic-version",
                HeaderValue::from_static(ANTHROPIC_VERSION),
            );
            let url = format!("{}/v1/messages", self.config.base_url.trim_end_matches('/'));
            let resp = self
                .http
                .post_json(&url, headers, &body, Some(&self.config.api_key))
                .await?;
            parse_response(&resp, &names).map_err(|e| ProviderError::Malformed {
                provider: "anthropic".to_string(),
                message: e.to_string(),
            })
        })
    }
}
