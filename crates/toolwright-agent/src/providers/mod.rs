//! The providers: one [`crate::Provider`] per wire format or model kind.

#[cfg(feature = "anthropic")]
pub mod anthropic;
#[cfg(feature = "openai")]
pub mod openai;
pub mod prompted;
pub mod scripted;

/// Why a provider's reply could not be read into a [`crate::Reply`] (the wire providers report
/// it as [`crate::ProviderError::Malformed`]; the prompted provider re-prompts with it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplyError {
    /// A part the response format requires is not there (`choices[0].message`, a `content`
    /// array).
    #[error("no {0} in the response")]
    Missing(&'static str),
    /// The tool calls are not a JSON array; `got` is the start of what came instead.
    #[error("{field} must be an array, got {got}")]
    NotAList {
        /// The field (`tool_calls`).
        field: &'static str,
        /// What came instead, shortened.
        got: String,
    },
    /// A tool call lacks a part: `at` locates it (`tool_calls[2]`), `what` names the part.
    #[error("{at} has no {what}")]
    CallIncomplete {
        /// Where the call is in the reply.
        at: String,
        /// The missing part.
        what: &'static str,
    },
    /// The text holds no readable JSON (prompted replies).
    #[error("{0}")]
    NotJson(#[from] crate::lenient::LenientError),
    /// The JSON is not an object (prompted replies).
    #[error("expected a JSON object")]
    NotAnObject,
    /// `requires_tools` is true and there are no calls (prompted replies).
    #[error("\"requires_tools\" is true but \"tool_calls\" is empty")]
    RequiresToolsWithoutCalls,
    /// Neither calls nor an answer (prompted replies).
    #[error("the object has neither \"tool_calls\" nor \"direct_response\"")]
    Empty,
}

impl ReplyError {
    /// [`ReplyError::NotAList`], with at most 80 characters of what came.
    pub(crate) fn not_a_list(field: &'static str, got: &serde_json::Value) -> Self {
        let text = got.to_string();
        let mut short: String = text.chars().take(80).collect();
        if short.len() < text.len() {
            short.push('…');
        }
        ReplyError::NotAList { field, got: short }
    }

    /// [`ReplyError::CallIncomplete`].
    pub(crate) fn call_incomplete(at: String, what: &'static str) -> Self {
        ReplyError::CallIncomplete { at, what }
    }
}

/// OpenAI's `tool_choice`.
///
/// `Required` and `Function` hold until a tool result follows the latest user message; later
/// turns leave the choice to the model (as `auto`), so an agent run can end with an answer
/// instead of calling tools until `max_steps`, and the next user message forces again. `None`
/// holds for every turn. Nothing is sent in a turn that offers no tools. Defined here, outside
/// the `openai` feature, so hosts parse the choice whatever providers they were built with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model chooses between answering and calling tools.
    Auto,
    /// The model must not call tools.
    None,
    /// The model must call at least one tool.
    Required,
    /// The model must call this tool (our name; the provider maps it to the wire name).
    Function(String),
}

impl std::str::FromStr for ToolChoice {
    type Err = std::convert::Infallible;

    /// `auto`, `none`, `required` (case-insensitive), anything else names a function.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "auto" => ToolChoice::Auto,
            "none" => ToolChoice::None,
            "required" => ToolChoice::Required,
            _ => ToolChoice::Function(s.trim().to_string()),
        })
    }
}

/// The tools of a turn in a provider dialect, and the map from the names the provider sees
/// (dialects may rename, e.g. `math.factorial` → `math_factorial`) back to ours. `name_pointer`
/// is where the dialect puts the name (`/function/name` for OpenAI, `/name` for Anthropic).
#[cfg(any(feature = "openai", feature = "anthropic"))]
pub(crate) fn export_tools(
    specs: &[toolwright_core::ToolSpec],
    dialect: toolwright_catalog::Dialect,
    name_pointer: &str,
) -> (
    Vec<serde_json::Value>,
    std::collections::HashMap<String, String>,
) {
    let mut names = std::collections::HashMap::new();
    let tools = specs
        .iter()
        .map(|spec| {
            let t = toolwright_catalog::export_dialect(spec, dialect);
            if let Some(wire) = t.pointer(name_pointer).and_then(serde_json::Value::as_str) {
                names.insert(wire.to_string(), spec.name.clone());
            }
            t
        })
        .collect();
    (tools, names)
}

/// The name the provider knows our tool `ours` by (its own name when the dialect kept it).
#[cfg(any(feature = "openai", feature = "anthropic"))]
pub(crate) fn wire_name(names: &std::collections::HashMap<String, String>, ours: &str) -> String {
    names
        .iter()
        .find(|(_, o)| o.as_str() == ours)
        .map_or_else(|| ours.to_string(), |(w, _)| w.clone())
}
