//! The providers: one [`crate::Provider`] per wire format or model kind.

#[cfg(feature = "anthropic")]
pub mod anthropic;
#[cfg(feature = "openai")]
pub mod openai;
pub mod prompted;
pub mod scripted;

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
