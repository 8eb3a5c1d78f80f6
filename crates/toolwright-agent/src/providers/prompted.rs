//! Prompted JSON: tool calling for models without native tool calls (the classic from-scratch
//! agent design).
//!
//! The system prompt lists the tools (name, description, parameters with types and
//! descriptions) and asks for one JSON object:
//! `{requires_tools, direct_response, thought, plan, tool_calls: [{tool, args}]}`, with examples.
//! The reply is read with the tolerant [`crate::lenient`] parser; when it still cannot be read,
//! the model is asked once more (bounded) with the parse error quoted.

use super::ReplyError;
use crate::lenient;
use crate::message::{Message, Reply, Role, Usage};
use crate::prompt::tool_text;
use crate::provider::{Provider, ProviderError, ProviderInfo, Turn};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::fmt::Write as _;
use toolwright_core::{ToolCall, ToolSpec};

/// Asks a text-only model for tool calls in a JSON format.
#[derive(Debug)]
pub struct PromptedProvider<P> {
    inner: P,
    max_reprompts: u32,
}

impl<P: Provider> PromptedProvider<P> {
    /// Prompted JSON over `inner` (asked without native tools), with one re-prompt.
    pub fn new(inner: P) -> Self {
        PromptedProvider {
            inner,
            max_reprompts: 1,
        }
    }

    /// Sets how many times an unreadable reply is re-prompted (default 1).
    pub fn with_reprompts(mut self, n: u32) -> Self {
        self.max_reprompts = n;
        self
    }
}

/// The response format, as the system prompt states it.
pub const FORMAT: &str = r#"{"requires_tools": true or false, "direct_response": "answer text" or null, "thought": "short reasoning", "plan": ["step", ...], "tool_calls": [{"tool": "tool_name", "args": {...}}]}"#;

/// The system prompt for `tools`, after the conversation's own system text `base`.
pub fn system_prompt(base: &str, tools: &[ToolSpec]) -> String {
    let mut s = String::new();
    if !base.trim().is_empty() {
        let _ = writeln!(s, "{}\n", base.trim());
    }
    let _ = writeln!(
        s,
        "You answer the user, calling tools when they help. Reply with exactly one JSON object and \
         nothing else, in this format:\n{FORMAT}\n\n\
         - When a tool is needed: \"requires_tools\": true, \"direct_response\": null, and the calls \
         in \"tool_calls\" (several calls run in parallel).\n\
         - When no tool is needed, or the tool results already answer the question: \
         \"requires_tools\": false, \"tool_calls\": [], and the answer in \"direct_response\".\n\
         - Use only the tools below, with their exact names and parameter names.\n\
         - Tool results come back as JSON envelopes. If one has \"status\": \"error\", read \
         error.message, error.fields and error.suggestion and correct the call; do not repeat a \
         failed call unchanged."
    );
    if tools.is_empty() {
        let _ = writeln!(
            s,
            "\nNo tools are available now: answer in \"direct_response\"."
        );
    } else {
        let _ = writeln!(s, "\nTools:\n");
        for t in tools {
            let _ = writeln!(s, "{}", tool_text(t, true, true));
        }
    }
    let _ = writeln!(s, "Examples:");
    let _ = writeln!(
        s,
        "User: Hello!\n{}",
        json!({"requires_tools": false, "direct_response": "Hello! How can I help?",
               "thought": "A greeting needs no tool.", "plan": [], "tool_calls": []})
    );
    if let Some(t) = tools.first() {
        let args = t
            .meta
            .examples
            .first()
            .cloned()
            .unwrap_or_else(|| json!({}));
        let _ = writeln!(
            s,
            "User: (a request that {} answers)\n{}",
            t.name,
            json!({"requires_tools": true, "direct_response": null,
                   "thought": format!("{} answers this.", t.name),
                   "plan": [format!("call {}", t.name), "answer with its result"],
                   "tool_calls": [{"tool": t.name, "args": args}]})
        );
    }
    s
}

/// One assistant turn written in the response format (for the conversation history).
fn assistant_json(m: &Message) -> String {
    let calls: Vec<Value> = m
        .tool_calls
        .iter()
        .map(|c| json!({"tool": c.name, "args": c.arguments}))
        .collect();
    if calls.is_empty() {
        json!({"requires_tools": false, "direct_response": m.content, "thought": "", "plan": [], "tool_calls": []})
            .to_string()
    } else {
        json!({"requires_tools": true, "direct_response": null, "thought": m.content, "plan": [], "tool_calls": calls})
            .to_string()
    }
}

/// The conversation as plain text messages for a model without tool calling.
pub fn text_conversation(turn: &Turn<'_>) -> Vec<Message> {
    let base: Vec<&str> = turn
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    let mut out = vec![Message::system(system_prompt(
        &base.join("\n\n"),
        turn.tools,
    ))];
    for m in turn.messages {
        match m.role {
            Role::System => {}
            Role::User => out.push(Message::user(m.content.clone())),
            Role::Assistant => out.push(Message::assistant(assistant_json(m), Vec::new())),
            Role::Tool => {
                let line = format!(
                    "Result of {} (call {}): {}",
                    m.name.as_deref().unwrap_or("tool"),
                    m.tool_call_id.as_deref().unwrap_or("?"),
                    m.content
                );
                match out.last_mut() {
                    Some(last)
                        if last.role == Role::User && last.content.starts_with("Tool results:") =>
                    {
                        last.content.push('\n');
                        last.content.push_str(&line);
                    }
                    _ => out.push(Message::user(format!("Tool results:\n{line}"))),
                }
            }
        }
    }
    out
}

/// Reads a reply in the response format (tolerantly) into a [`Reply`]; `id_base` makes call ids.
///
/// # Errors
/// The text holds no object, or the object has neither calls nor an answer.
pub fn parse_reply(text: &str, id_base: usize) -> Result<Reply, ReplyError> {
    let v = lenient::parse(text)?;
    interpret(&v, id_base)
}

fn str_field<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str))
}

fn interpret(v: &Value, id_base: usize) -> Result<Reply, ReplyError> {
    let obj = match v {
        Value::Object(_) => v,
        Value::Array(a) if a.len() == 1 => a.first().unwrap_or(v),
        _ => return Err(ReplyError::NotAnObject),
    };
    if !obj.is_object() {
        return Err(ReplyError::NotAnObject);
    }
    let raw_calls: Vec<Value> = match obj.get("tool_calls").or_else(|| obj.get("calls")) {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Object(o)) => vec![Value::Object(o.clone())],
        Some(Value::Null) | None => match obj.get("tool_call") {
            Some(Value::Object(o)) => vec![Value::Object(o.clone())],
            _ if obj.get("tool").and_then(Value::as_str).is_some() => vec![obj.clone()],
            _ => Vec::new(),
        },
        Some(other) => return Err(ReplyError::not_a_list("\"tool_calls\"", other)),
    };
    let mut calls = Vec::new();
    for (i, c) in raw_calls.iter().enumerate() {
        let name = str_field(c, &["tool", "name", "function", "tool_name"]).ok_or_else(|| {
            ReplyError::call_incomplete(format!("tool_calls[{i}]"), "\"tool\" name")
        })?;
        let args = match c
            .get("args")
            .or_else(|| c.get("arguments"))
            .or_else(|| c.get("parameters"))
        {
            Some(Value::Object(o)) => Value::Object(o.clone()),
            Some(Value::String(s)) => lenient::parse(s)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| Value::String(s.clone())),
            None | Some(Value::Null) => json!({}),
            Some(other) => Value::String(other.to_string()),
        };
        calls.push(ToolCall::new(format!("p{id_base}_{i}"), name, args));
    }
    let requires = obj.get("requires_tools").and_then(Value::as_bool);
    let text = str_field(
        obj,
        &["direct_response", "answer", "response", "final_answer"],
    )
    .map(str::trim)
    .filter(|s| !s.is_empty())
    .map(String::from);
    if calls.is_empty() && text.is_none() {
        return Err(if requires == Some(true) {
            ReplyError::RequiresToolsWithoutCalls
        } else {
            ReplyError::Empty
        });
    }
    let plan = match obj.get("plan") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map_or_else(|| x.to_string(), String::from))
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.clone()],
        _ => Vec::new(),
    };
    Ok(Reply {
        // A direct response next to calls is an interim remark, not the answer.
        text: if calls.is_empty() { text } else { None },
        tool_calls: calls,
        thought: str_field(obj, &["thought", "reasoning"])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from),
        plan,
        usage: None,
        model: None,
        notes: Vec::new(),
        needs_input: Vec::new(),
    })
}

impl<P: Provider> Provider for PromptedProvider<P> {
    fn name(&self) -> String {
        format!("prompted({})", self.inner.name())
    }

    fn wants_routing(&self) -> Option<usize> {
        self.inner.wants_routing()
    }

    fn info(&self) -> ProviderInfo {
        self.inner.info()
    }

    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let mut messages = text_conversation(&turn);
            let mut usage: Option<Usage> = None;
            let mut notes = Vec::new();
            let mut attempt = 0u32;
            loop {
                let inner_turn = Turn {
                    messages: &messages,
                    tools: &[],
                    ranking: None,
                };
                let reply = self.inner.complete(inner_turn).await?;
                if let Some(u) = reply.usage {
                    usage.get_or_insert_with(Usage::default).add(u);
                }
                let model = reply.model;
                let raw = reply.text.unwrap_or_default();
                match parse_reply(&raw, turn.messages.len()) {
                    Ok(mut parsed) => {
                        parsed.usage = usage;
                        parsed.model = model;
                        notes.extend(parsed.notes);
                        parsed.notes = notes;
                        return Ok(parsed);
                    }
                    Err(e) if attempt < self.max_reprompts => {
                        attempt += 1;
                        notes.push(format!("re-prompted after an unreadable reply: {e}"));
                        messages.push(Message::assistant(raw, Vec::new()));
                        messages.push(Message::user(format!(
                            "Your reply could not be read: {e}. Reply again with only one JSON \
                             object in the required format:\n{FORMAT}"
                        )));
                    }
                    Err(e) => {
                        notes.push(format!(
                            "the reply could not be read as the JSON format ({e}); it is returned as text"
                        ));
                        return Ok(Reply {
                            text: Some(raw.trim().to_string()).filter(|s| !s.is_empty()),
                            usage,
                            model,
                            notes,
                            ..Reply::default()
                        });
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_calls_and_answers() {
        let r = parse_reply(
            "```json\n{'requires_tools': true, 'direct_response': None, 'thought': 'convert', \
             'plan': ['convert'], 'tool_calls': [{'tool': 'convert_currency', 'args': {'amount': 100,},},],}\n```",
            3,
        )
        .unwrap();
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].name, "convert_currency");
        assert_eq!(r.tool_calls[0].arguments, json!({"amount": 100}));
        assert_eq!(r.tool_calls[0].id, "p3_0");
        assert_eq!(r.plan, vec!["convert".to_string()]);
        let r = parse_reply(
            r#"{"requires_tools": false, "direct_response": "Fine, thanks!"} trailing"#,
            0,
        )
        .unwrap();
        assert_eq!(r.text.as_deref(), Some("Fine, thanks!"));
        assert!(r.tool_calls.is_empty());
    }

    #[test]
    fn unreadable_replies_are_errors_with_a_reason() {
        assert!(
            parse_reply("I think you should convert it.", 0)
                .unwrap_err()
                .to_string()
                .contains("no JSON object")
        );
        assert!(
            parse_reply(r#"{"requires_tools": true, "tool_calls": []}"#, 0)
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        assert!(
            parse_reply(r#"{"tool_calls": [{"args": {}}]}"#, 0)
                .unwrap_err()
                .to_string()
                .contains("no \"tool\"")
        );
    }
}
