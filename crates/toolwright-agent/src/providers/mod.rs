//! The providers: one [`crate::Provider`] per wire format or model kind.

pub mod anthropic;
pub mod openai;
pub mod prompted;
pub mod scripted;

/// The tools of a turn in a provider dialect, and the map from the names the provider sees
/// (dialects may rename, e.g. `math.factorial` → `math_factorial`) back to ours. `name_pointer`
/// is where the dialect puts the name (`/function/name` for OpenAI, `/name` for Anthropic).
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
pub(crate) fn wire_name(names: &std::collections::HashMap<String, String>, ours: &str) -> String {
    names
        .iter()
        .find(|(_, o)| o.as_str() == ours)
        .map_or_else(|| ours.to_string(), |(w, _)| w.clone())
}
