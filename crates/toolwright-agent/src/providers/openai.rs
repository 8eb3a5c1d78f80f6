//! OpenAI-compatible Chat Completions with native `tools` / `tool_calls` (parallel calls
//! included). One provider for OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio, Lemonade:
//! set the base URL, key and model.
//!
//! When every tool offered in a turn is strict-compatible
//! ([`toolwright_catalog::dialect::strict_blockers`] is empty for each), the tools go out in the
//! `openai-strict` dialect with `"strict": true`, so the server constrains the arguments to the
//! schema; otherwise in the plain `openai` dialect ([`OpenAiConfig::strict`] turns this off).
//! Strict mode makes every property required and optionals nullable, so the `null`s the model
//! sends for optionals it leaves out are dropped from the returned arguments
//! ([`toolwright_catalog::dialect::drop_strict_nulls`]) before the runtime validates them against
//! the tool's own schema. [`OpenAiConfig::tool_choice`] sets `tool_choice`.

use super::ReplyError;
use crate::http::{Http, HttpConfig};
use crate::message::{Reply, Role, Usage};
use crate::provider::{Provider, ProviderError, ProviderInfo, Secret, Turn};
use futures::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::{Value, json};
use std::collections::HashMap;
use toolwright_catalog::Dialect;
use toolwright_catalog::dialect::{drop_strict_nulls, strict_blockers};
use toolwright_core::ToolCall;

/// The default base URL.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The default model.
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-4o-mini";

/// Settings of an OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Base URL up to `/v1` (the provider appends `/chat/completions`).
    pub base_url: String,
    /// Bearer key; optional for local servers.
    pub api_key: Option<Secret>,
    /// Model name.
    pub model: String,
    /// Sampling temperature (`None`: the server's default).
    pub temperature: Option<f32>,
    /// Most tokens generated per turn.
    pub max_tokens: Option<u32>,
    /// Timeouts and retries.
    pub http: HttpConfig,
    /// Send strict schemas (`"strict": true`) when every offered tool is strict-compatible
    /// (default `true`). Turn it off for servers that reject the `strict` field.
    pub strict: bool,
    /// Whether and which tool the model must call; `None` sends nothing (the server's default,
    /// `auto`).
    pub tool_choice: Option<ToolChoice>,
}

pub use super::ToolChoice;

impl OpenAiConfig {
    /// A config for `base_url` and `model` with default timeouts.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            temperature: Some(0.0),
            max_tokens: None,
            http: HttpConfig::default(),
            strict: true,
            tool_choice: None,
        }
    }

    /// Sets `tool_choice`.
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// Sends strict schemas when possible (`true`, the default) or never.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets the key.
    pub fn with_key(mut self, key: Secret) -> Self {
        self.api_key = Some(key).filter(|k| !k.is_empty());
        self
    }
}

/// The OpenAI-compatible provider.
#[derive(Debug)]
pub struct OpenAiProvider {
    config: OpenAiConfig,
    http: Http,
}

impl OpenAiProvider {
    /// A provider for `config`.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        let http = Http::new("openai", config.http.clone())?;
        Ok(OpenAiProvider { config, http })
    }

    fn url(&self) -> String {
        format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        )
    }

    /// Whether this turn's tools go out in strict mode: enabled and every tool strict-compatible.
    pub fn strict_for(&self, tools: &[toolwright_core::ToolSpec]) -> bool {
        self.config.strict
            && !tools.is_empty()
            && tools.iter().all(|t| strict_blockers(t).is_empty())
    }

    /// The request body for a turn, and the map from wire tool names back to ours.
    ///
    /// # Errors
    /// `tool_choice` names a tool this turn does not offer.
    pub fn request_body(
        &self,
        turn: &Turn<'_>,
    ) -> Result<(Value, HashMap<String, String>), ProviderError> {
        let dialect = if self.strict_for(turn.tools) {
            Dialect::OpenAiStrict
        } else {
            Dialect::OpenAi
        };
        let (tools, names) = super::export_tools(turn.tools, dialect, "/function/name");
        let choice = self.tool_choice_value(turn, &names)?;
        let wire_name = |n: &str| super::wire_name(&names, n);
        let messages: Vec<Value> = turn
            .messages
            .iter()
            .map(|m| match m.role {
                Role::Assistant if !m.tool_calls.is_empty() => json!({
                    "role": "assistant",
                    "content": if m.content.is_empty() { Value::Null } else { json!(m.content) },
                    "tool_calls": m.tool_calls.iter().map(|c| json!({
                        "id": c.id,
                        "type": "function",
                        "function": {"name": wire_name(&c.name), "arguments": arguments_text(&c.arguments)},
                    })).collect::<Vec<_>>(),
                }),
                Role::Tool => json!({
                    "role": "tool",
                    "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": m.content,
                }),
                r => json!({"role": r.as_str(), "content": m.content}),
            })
            .collect();
        let mut body = json!({"model": self.config.model, "messages": messages});
        if let Some(o) = body.as_object_mut() {
            if !tools.is_empty() {
                o.insert("tools".into(), Value::Array(tools));
                if let Some(c) = choice {
                    o.insert("tool_choice".into(), c);
                }
            }
            if let Some(t) = self.config.temperature {
                o.insert("temperature".into(), json!(t));
            }
            if let Some(n) = self.config.max_tokens {
                o.insert("max_tokens".into(), json!(n));
            }
        }
        Ok((body, names))
    }

    /// The `tool_choice` value for this turn, if any (see [`ToolChoice`]).
    fn tool_choice_value(
        &self,
        turn: &Turn<'_>,
        names: &HashMap<String, String>,
    ) -> Result<Option<Value>, ProviderError> {
        let Some(choice) = &self.config.tool_choice else {
            return Ok(None);
        };
        if turn.tools.is_empty() {
            // No tools in this turn (e.g. the router found none): nothing to choose among.
            return Ok(None);
        }
        // A tool result since the latest user message: the forced call was made.
        let since_user = turn
            .messages
            .iter()
            .rposition(|m| m.role == Role::User)
            .map_or(0, |i| i + 1);
        let after_tool = turn
            .messages
            .get(since_user..)
            .unwrap_or_default()
            .iter()
            .any(|m| m.role == Role::Tool);
        Ok(match choice {
            ToolChoice::Auto => Some(json!("auto")),
            ToolChoice::None => Some(json!("none")),
            ToolChoice::Required | ToolChoice::Function(_) if after_tool => None,
            ToolChoice::Required => Some(json!("required")),
            ToolChoice::Function(name) => {
                if !turn.tools.iter().any(|t| &t.name == name) {
                    return Err(ProviderError::Config(format!(
                        "tool_choice names the tool `{name}`, which this turn does not offer (offered: {})",
                        turn.tools
                            .iter()
                            .map(|t| t.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                let wire = super::wire_name(names, name);
                Some(json!({"type": "function", "function": {"name": wire}}))
            }
        })
    }
}

/// Arguments as the wire wants them: a JSON text (raw text kept as it was).
fn arguments_text(args: &Value) -> String {
    match args {
        Value::String(raw) => raw.clone(),
        Value::Null => "{}".to_string(),
        v => v.to_string(),
    }
}

/// Parses a Chat Completions response into a [`Reply`].
///
/// # Errors
/// The body does not have the Chat Completions shape.
pub fn parse_response(body: &Value, names: &HashMap<String, String>) -> Result<Reply, ReplyError> {
    let message = body
        .pointer("/choices/0/message")
        .ok_or(ReplyError::Missing("choices[0].message"))?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from);
    let mut calls = Vec::new();
    if let Some(list) = message.get("tool_calls") {
        let list = list
            .as_array()
            .ok_or_else(|| ReplyError::not_a_list("tool_calls", list))?;
        for (i, c) in list.iter().enumerate() {
            let f = c.get("function").ok_or_else(|| {
                ReplyError::call_incomplete(format!("tool_calls[{i}]"), "function")
            })?;
            let wire = f.get("name").and_then(Value::as_str).ok_or_else(|| {
                ReplyError::call_incomplete(format!("tool_calls[{i}].function"), "name")
            })?;
            let name = names.get(wire).cloned().unwrap_or_else(|| wire.to_string());
            let id = c
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("call_{i}"), String::from);
            // Arguments are a JSON text; keep unparsable text as a string for the agent to report.
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) if s.trim().is_empty() => json!({}),
                Some(Value::String(s)) => serde_json::from_str::<Value>(s)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| Value::String(s.clone())),
                Some(Value::Object(o)) => Value::Object(o.clone()),
                None | Some(Value::Null) => json!({}),
                Some(other) => Value::String(other.to_string()),
            };
            calls.push(ToolCall::new(id, name, arguments));
        }
    }
    let usage = body.get("usage").map(|u| Usage {
        input_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    });
    Ok(Reply {
        text,
        tool_calls: calls,
        usage,
        model: body
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_string),
        ..Reply::default()
    })
}

impl Provider for OpenAiProvider {
    fn name(&self) -> String {
        format!("openai:{}", self.config.model)
    }

    fn info(&self) -> ProviderInfo {
        ProviderInfo::new("openai", Some(self.config.model.clone()))
            .with_server_url(&self.config.base_url)
    }

    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let (body, names) = self.request_body(&turn)?;
            let strict = body
                .pointer("/tools/0/function/strict")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let mut headers = HeaderMap::new();
            if let Some(key) = &self.config.api_key {
                let mut v =
                    HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                        ProviderError::Config(
                            "the API key contains characters not allowed in a header".into(),
                        )
                    })?;
                v.set_sensitive(true);
                headers.insert(AUTHORIZATION, v);
            }
            let resp = self
                .http
                .post_json(&self.url(), headers, &body, self.config.api_key.as_ref())
                .await?;
            let mut reply =
                parse_response(&resp, &names).map_err(|e| ProviderError::Malformed {
                    provider: "openai".to_string(),
                    message: e.to_string(),
                })?;
            if strict {
                for call in &mut reply.tool_calls {
                    if let Some(spec) = turn.tools.iter().find(|t| t.name == call.name) {
                        drop_strict_nulls(spec, &mut call.arguments);
                    }
                }
            }
            Ok(reply)
        })
    }
}
