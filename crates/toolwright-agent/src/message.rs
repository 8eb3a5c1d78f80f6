//! The conversation: [`Message`]s in, a [`Reply`] out, and token [`Usage`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwright_core::{Outcome, ToolCall};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The person.
    User,
    /// The model (text and/or tool calls).
    Assistant,
    /// A tool result (one envelope).
    Tool,
}

impl Role {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message of the conversation, in a provider-neutral form.
///
/// ```
/// use toolwright_agent::{Message, Role};
/// let m = Message::user("Convert 100 USD to EUR");
/// assert_eq!(m.role, Role::User);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text (for a tool result: the envelope as JSON).
    #[serde(default)]
    pub content: String,
    /// Calls the assistant asked for. A call whose `arguments` is a JSON *string* carries the
    /// model's raw, unparsable arguments text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool result: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// For a tool result: whether the envelope's status is `error`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl Message {
    fn plain(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            is_error: false,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::plain(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::plain(Role::User, content)
    }

    /// An assistant message with text and/or calls.
    pub fn assistant(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message {
            tool_calls,
            ..Message::plain(Role::Assistant, content)
        }
    }

    /// The result of `call`: the envelope as compact JSON, `is_error` from its status.
    pub fn tool_result(call: &ToolCall, outcome: &Outcome) -> Self {
        Message {
            tool_call_id: Some(call.id.to_string()),
            name: Some(call.name.to_string()),
            is_error: outcome.is_error(),
            ..Message::plain(Role::Tool, outcome.to_json().to_string())
        }
    }

    /// The envelope of a tool-result message, when its content still parses as one.
    pub fn envelope(&self) -> Option<Value> {
        if self.role != Role::Tool {
            return None;
        }
        serde_json::from_str(&self.content).ok()
    }
}

/// Tokens a provider reported for one turn (or a sum of turns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt (input) tokens.
    pub input_tokens: u64,
    /// Generated (output) tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// What the model answered in one turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// Text for the user (the answer when there are no calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Calls to run. Arguments that were not valid JSON arrive as a JSON string (raw text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The model's reasoning, when the format has one (prompted JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<String>,
    /// The model's plan, when the format has one (prompted JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<String>,
    /// Tokens, when the provider reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The model that answered, as the server names it (`gpt-4o-mini-2024-07-18` for a request
    /// of `gpt-4o-mini`), when the wire format says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What the provider did besides asking the model (re-prompts, templates, routing), for the
    /// trace. Honest notes, never shown as the model's words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The inputs (parameter names) the provider asks the user for instead of calling a tool
    /// whose required values the request does not give; `text` is the question. Empty for an
    /// answer or calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs_input: Vec<String>,
}

impl Reply {
    /// A text-only reply.
    pub fn text(text: impl Into<String>) -> Self {
        Reply {
            text: Some(text.into()),
            ..Reply::default()
        }
    }

    /// A reply with calls.
    pub fn calls(tool_calls: Vec<ToolCall>) -> Self {
        Reply {
            tool_calls,
            ..Reply::default()
        }
    }
}
