//! A catalog as the operator's policy file: `serve --catalog FILE` applies each entry's metadata
//! (side effects, confirmation, timeouts, retries, fallback, rate limit, output budget…) to the
//! registered tool of that name. The tool keeps its own description, schema and body; only
//! what the runtime enforces comes from the catalog, so an operator tightens a tool without a
//! rebuild (`toolwright catalog export`, edit, serve).

use serde_json::Value;
use std::sync::Arc;
use toolwright_core::{Registry, Tool, ToolContext, ToolFuture, ToolSpec};

/// A registered tool seen through another spec (its metadata replaced).
struct Overlaid {
    inner: Arc<dyn Tool>,
    spec: ToolSpec,
}

impl Tool for Overlaid {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: Value, ctx: ToolContext) -> ToolFuture {
        self.inner.call(args, ctx)
    }

    fn call_shared(&self, args: Arc<Value>, ctx: ToolContext) -> ToolFuture {
        self.inner.call_shared(args, ctx)
    }

    fn call_ref(&self, args: &Value, ctx: ToolContext) -> ToolFuture {
        self.inner.call_ref(args, ctx)
    }

    fn borrows_args(&self) -> bool {
        self.inner.borrows_args()
    }

    fn uses_context(&self) -> bool {
        self.inner.uses_context()
    }

    fn preview(&self, args: &Value) -> Value {
        self.inner.preview(args)
    }
}

/// Why a catalog's policies, or inlined schemas, could not be put on a registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverlayError {
    /// A policy names a tool that is not registered (a typo would otherwise apply nothing).
    #[error(
        "the catalog names `{name}`, which is not a registered tool (registered: {})",
        .registered.join(", ")
    )]
    UnknownTool {
        /// The name in the catalog.
        name: String,
        /// The registered tools.
        registered: Vec<String>,
    },
    /// The changed tool could not be registered again.
    #[error("tool `{tool}`: {source}")]
    Register {
        /// The tool.
        tool: String,
        /// Why the registry refused it.
        source: toolwright_core::RegistryError,
    },
}

/// Applies the metadata of every spec in `policies` to the registered tool of the same name;
/// returns how many tools changed.
///
/// # Errors
/// A policy names a tool that is not registered (a typo would otherwise silently apply
/// nothing), or the tool cannot be registered again.
pub fn apply_policies(registry: &Registry, policies: &[ToolSpec]) -> Result<usize, OverlayError> {
    let mut changed = 0;
    for policy in policies {
        let Some(entry) = registry.get(&policy.name) else {
            return Err(OverlayError::UnknownTool {
                name: policy.name.clone(),
                registered: registry.names(),
            });
        };
        if entry.spec().meta == policy.meta {
            continue;
        }
        let mut spec = entry.spec().clone();
        spec.meta = policy.meta.clone();
        let tool = Overlaid {
            inner: entry.tool.clone(),
            spec,
        };
        registry
            .upsert_arc(Arc::new(tool))
            .map_err(|source| OverlayError::Register {
                tool: policy.name.clone(),
                source,
            })?;
        changed += 1;
    }
    Ok(changed)
}

/// Replaces, in place, each registered tool whose schema has local `$ref`s by the same tool
/// advertising its schema with the references inlined and `$defs` removed (the validator is
/// compiled from the inlined schema, which accepts exactly the same arguments). A tool with a
/// recursive or unresolvable reference cannot be inlined without changing what it accepts; it is
/// left as it is and named in the returned notes. Tools registered later (an imported MCP
/// server's list changing) are not touched.
///
/// # Errors
/// A tool cannot be registered again.
pub fn inline_schema_refs(registry: &Registry) -> Result<Vec<String>, OverlayError> {
    let mut notes = Vec::new();
    for entry in registry.entries() {
        let spec = entry.spec();
        if !has_ref(&spec.parameters, 0) {
            continue;
        }
        let mut problems = Vec::new();
        let inlined = crate::schema::inline_refs(&spec.parameters, &mut problems);
        if let Some(p) = problems.first() {
            let why = if p.recursive {
                "is recursive"
            } else {
                "does not resolve"
            };
            notes.push(format!(
                "tool `{}` keeps its $defs: the reference `{}` at {} {why}",
                spec.name,
                p.reference,
                if p.pointer.is_empty() {
                    "/"
                } else {
                    &p.pointer
                }
            ));
            continue;
        }
        let mut spec = spec.clone();
        spec.parameters = inlined;
        let name = spec.name.clone();
        let tool = Overlaid {
            inner: entry.tool.clone(),
            spec,
        };
        registry
            .upsert_arc(Arc::new(tool))
            .map_err(|source| OverlayError::Register { tool: name, source })?;
    }
    Ok(notes)
}

/// Whether `v` holds a `$ref` or `$defs`/`definitions` anywhere (to a bounded depth).
fn has_ref(v: &Value, depth: usize) -> bool {
    if depth > crate::schema::MAX_DEPTH {
        return false;
    }
    match v {
        Value::Object(m) => {
            m.contains_key("$ref")
                || m.contains_key("$defs")
                || m.contains_key("definitions")
                || m.values().any(|x| has_ref(x, depth + 1))
        }
        Value::Array(a) => a.iter().any(|x| has_ref(x, depth + 1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolwright_core::{FnTool, RateLimit, ToolOutput};

    #[test]
    fn metadata_comes_from_the_policy_and_the_body_stays() {
        let reg = Registry::new();
        let spec = ToolSpec::new(
            "send_sms",
            "Send a text message. Use this when the user asks to text someone.",
            json!({"type": "object"}),
        );
        reg.register(FnTool::new(spec.clone(), |_, _| async {
            Ok(ToolOutput::Data(json!("sent")))
        }))
        .unwrap();
        let mut policy = spec.clone();
        policy.description = "ignored".into();
        policy.meta.rate_limit = Some(RateLimit::per_second(5));
        assert_eq!(apply_policies(&reg, &[policy.clone()]).unwrap(), 1);
        let now = reg.get("send_sms").unwrap();
        assert_eq!(now.spec().meta.rate_limit, Some(RateLimit::per_second(5)));
        assert_eq!(now.spec().description, spec.description);
        assert_eq!(apply_policies(&reg, &[policy]).unwrap(), 0);
        let mut typo = spec;
        typo.name = "send_smss".into();
        let e = apply_policies(&reg, &[typo]).unwrap_err();
        assert!(
            matches!(&e, OverlayError::UnknownTool { name, .. } if name == "send_smss"),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .contains("`send_smss`, which is not a registered tool")
        );
    }

    #[tokio::test]
    async fn refs_are_inlined_and_the_tool_still_validates_and_runs() {
        let reg = Registry::new();
        let params = json!({"type": "object",
            "properties": {"to": {"$ref": "#/$defs/Address"}},
            "required": ["to"],
            "$defs": {"Address": {"type": "object",
                "properties": {"city": {"type": "string"}}, "required": ["city"]}}});
        let spec = ToolSpec::new(
            "ship",
            "Ship a parcel. Use this when asked to send.",
            params,
        );
        reg.register(FnTool::new(spec, |a, _| async move {
            Ok(ToolOutput::Data(a["to"]["city"].clone()))
        }))
        .unwrap();
        let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
        reg.register(FnTool::new(
            ToolSpec::new(
                "walk",
                "Walk a tree. Use this when asked to walk.",
                tree.clone(),
            ),
            |_, _| async { Ok(ToolOutput::Data(json!(null))) },
        ))
        .unwrap();
        let plain = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        reg.register(FnTool::new(
            ToolSpec::new("find", "Find. Use this when asked to find.", plain.clone()),
            |_, _| async { Ok(ToolOutput::Data(json!(null))) },
        ))
        .unwrap();

        let notes = inline_schema_refs(&reg).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("`walk`") && notes[0].contains("recursive"),
            "{notes:?}"
        );
        let ship = reg.get("ship").unwrap();
        assert_eq!(
            ship.spec().parameters,
            json!({"type": "object",
                "properties": {"to": {"type": "object",
                    "properties": {"city": {"type": "string"}}, "required": ["city"]}},
                "required": ["to"]})
        );
        assert_eq!(reg.get("walk").unwrap().spec().parameters, tree);
        assert_eq!(reg.get("find").unwrap().spec().parameters, plain);

        // Validation against the inlined schema, then the tool run on what it accepted.
        let ship = reg.resolve("ship").unwrap();
        let (args, _) = ship
            .prepare(json!({"to": {"city": "Oslo"}}), false)
            .unwrap();
        let ok = toolwright_core::run_guarded(&ship, args, ship.context_for("1")).await;
        assert_eq!(ok.data, Some(json!("Oslo")), "{ok:?}");
        let bad = ship
            .prepare(json!({"to": {"town": "Oslo"}}), false)
            .unwrap_err();
        assert_eq!(bad.code, toolwright_core::ErrorCode::Validation);
    }
}
