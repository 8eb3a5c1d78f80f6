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

    fn preview(&self, args: &Value) -> Value {
        self.inner.preview(args)
    }
}

/// Applies the metadata of every spec in `policies` to the registered tool of the same name;
/// returns how many tools changed.
///
/// # Errors
/// A policy names a tool that is not registered (a typo would otherwise silently apply
/// nothing), or the tool cannot be registered again.
pub fn apply_policies(registry: &Registry, policies: &[ToolSpec]) -> Result<usize, String> {
    let mut changed = 0;
    for policy in policies {
        let Some(entry) = registry.get(&policy.name) else {
            return Err(format!(
                "the catalog names `{}`, which is not a registered tool (registered: {})",
                policy.name,
                registry.names().join(", ")
            ));
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
            .map_err(|e| format!("tool `{}`: {e}", policy.name))?;
        changed += 1;
    }
    Ok(changed)
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
        assert!(
            apply_policies(&reg, &[typo])
                .unwrap_err()
                .contains("send_smss")
        );
    }
}
