//! Fallback tools: when a tool answers `DEPENDENCY_UNAVAILABLE` and declares
//! `fallback = "other_tool"`, the other tool is run with the same arguments if its schema accepts
//! them, or with arguments from a mapping hook ([`FallbackLayer::with_mapper`]) otherwise. The
//! envelope says that a fallback answered (`meta.fallback_from` and the message).
//!
//! One hop only: a fallback's own fallback is not followed, so two tools naming each other
//! cannot loop. A fallback that needs confirmation is not run on an unapproved call.

use crate::service::{BoxService, Layer, Request, Service};
use futures::future::BoxFuture;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use toolwright_core::{ErrorCode, Outcome, Registry};

/// Maps the arguments of the failed tool to arguments of its fallback; `None` means they cannot
/// be mapped (no fallback runs).
pub type ArgMapper = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

/// Runs a tool's declared fallback on `DEPENDENCY_UNAVAILABLE` (see the module docs).
#[derive(Clone)]
pub struct FallbackLayer {
    registry: Arc<Registry>,
    mappers: HashMap<(String, String), ArgMapper>,
}

impl std::fmt::Debug for FallbackLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FallbackLayer")
            .field("mappers", &self.mappers.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl FallbackLayer {
    /// A layer that looks fallbacks up in `registry`.
    pub fn new(registry: Arc<Registry>) -> Self {
        FallbackLayer {
            registry,
            mappers: HashMap::new(),
        }
    }

    /// Maps arguments when `from` falls back to `to` and `to`'s schema does not accept `from`'s
    /// arguments as they are.
    pub fn with_mapper(mut self, from: &str, to: &str, mapper: ArgMapper) -> Self {
        self.mappers
            .insert((from.to_string(), to.to_string()), mapper);
        self
    }
}

impl Layer for FallbackLayer {
    fn layer(&self, inner: BoxService) -> BoxService {
        Arc::new(Fallback {
            inner,
            registry: self.registry.clone(),
            mappers: Arc::new(self.mappers.clone()),
        })
    }
}

struct Fallback {
    inner: BoxService,
    registry: Arc<Registry>,
    mappers: Arc<HashMap<(String, String), ArgMapper>>,
}

/// Whether `req`'s tool names a fallback; calls to any other go straight through.
pub(crate) fn has_fallback(req: &Request) -> bool {
    req.entry.facts().has_fallback
}

impl Service for Fallback {
    fn call(&self, req: Request) -> BoxFuture<'static, Outcome> {
        // Without a fallback: straight through, the request is not kept.
        let Some(to) = req.entry.spec().meta.fallback.clone() else {
            return self.inner.call(req);
        };
        let inner = self.inner.clone();
        let registry = self.registry.clone();
        let mappers = self.mappers.clone();
        Box::pin(async move {
            let from = req.tool_name().to_string();
            let out = inner.call(req.clone()).await;
            if out.error_code() != Some(ErrorCode::DependencyUnavailable) {
                return out;
            }
            let Ok(entry) = registry.resolve(&to) else {
                tracing::warn!(tool = %from, fallback = %to, "fallback tool is not registered");
                return out;
            };
            if entry.spec().needs_confirmation() && !req.approved {
                return out;
            }
            // Same arguments when the fallback's schema accepts them, else the mapping hook.
            let args = match entry.prepare(Value::clone(&req.args), true) {
                Ok((a, _)) => Some(a),
                Err(_) => mappers
                    .get(&(from.clone(), to.clone()))
                    .and_then(|m| m(&req.args))
                    .and_then(|a| entry.prepare(a, true).ok().map(|(a, _)| a)),
            };
            let Some(args) = args else {
                tracing::warn!(tool = %from, fallback = %to, "arguments do not fit the fallback");
                return out;
            };
            let reason = out.message.clone();
            let mut freq = req.clone();
            freq.entry = entry;
            freq.args = Arc::new(args);
            let mut fout = inner.call(freq).await;
            if fout.is_error() {
                let mut out = out;
                out.message =
                    format!("{reason} The fallback `{to}` failed too: {}", fout.message).into();
                return out;
            }
            fout.meta.fallback_from = Some(from.clone());
            fout.meta.tool = toolwright_core::SharedStr::from(to.as_str());
            fout.meta.retries = fout.meta.retries.saturating_add(out.meta.retries);
            let said = if fout.message.is_empty() {
                String::new()
            } else {
                format!(" {}", fout.message)
            };
            fout.message = format!(
                "`{from}` was unavailable ({}), so the fallback `{to}` answered.{said}",
                reason.trim_end_matches('.')
            )
            .into();
            fout
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::service_fn;
    use serde_json::json;
    use toolwright_core::{FnTool, ToolCall, ToolError, ToolMeta, ToolOutput, ToolSpec};

    fn registry() -> Arc<Registry> {
        let reg = Registry::new();
        let primary = ToolSpec::new(
            "semantic",
            "Semantic search. Use this when searching.",
            json!({"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}),
        )
        .with_meta(ToolMeta {
            fallback: Some("keyword".into()),
            ..ToolMeta::default()
        });
        reg.register(FnTool::new(primary, |_, _| async {
            Err(ToolError::dependency_unavailable(
                "The index is off.",
                "Use keyword search.",
            ))
        }))
        .unwrap();
        let kw = ToolSpec::new(
            "keyword",
            "Keyword search. Use this when searching.",
            json!({"type":"object","properties":{"q":{"type":"string"}},"required":["q"],
                   "additionalProperties": false}),
        );
        reg.register(FnTool::new(
            kw,
            |a, _| async move { Ok(ToolOutput::Data(a)) },
        ))
        .unwrap();
        Arc::new(reg)
    }

    fn run_tool() -> BoxService {
        service_fn(|req: Request| async move {
            toolwright_core::run_guarded_shared(&req.entry, req.args.clone(), req.context()).await
        })
    }

    fn request(reg: &Registry) -> Request {
        let args = json!({"query": "rust"});
        Request::new(
            ToolCall::new("c", "semantic", args.clone()),
            reg.resolve("semantic").unwrap(),
            args,
        )
    }

    #[tokio::test]
    async fn mapper_adapts_arguments_for_the_fallback() {
        let reg = registry();
        let layer = FallbackLayer::new(reg.clone()).with_mapper(
            "semantic",
            "keyword",
            Arc::new(|a: &Value| Some(json!({"q": a.get("query")?.clone()}))),
        );
        let out = layer.layer(run_tool()).call(request(&reg)).await;
        assert!(!out.is_error(), "{out:?}");
        assert_eq!(out.data, Some(json!({"q": "rust"})));
        assert_eq!(out.meta.fallback_from.as_deref(), Some("semantic"));
        assert!(
            out.message.contains("fallback `keyword` answered"),
            "{}",
            out.message
        );
    }

    #[tokio::test]
    async fn without_a_fitting_schema_or_mapper_the_error_stays() {
        let reg = registry();
        let out = FallbackLayer::new(reg.clone())
            .layer(run_tool())
            .call(request(&reg))
            .await;
        assert_eq!(out.error_code(), Some(ErrorCode::DependencyUnavailable));
        assert!(out.meta.fallback_from.is_none());
    }
}
