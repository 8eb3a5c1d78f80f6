//! Every call is an `execute_tool` span with the OpenTelemetry GenAI attributes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use toolwright_core::{FnTool, Registry, ToolCall, ToolOutput, ToolSpec};
use toolwright_runtime::{CallOptions, Runtime};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

type Spans = Arc<Mutex<Vec<(String, BTreeMap<String, String>)>>>;

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

struct Capture(Spans);

impl<S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>> Layer<S>
    for Capture
{
    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, _ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        self.0
            .lock()
            .unwrap()
            .push((attrs.metadata().name().to_string(), fields));
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let name = ctx
            .span(id)
            .map(|s| s.name().to_string())
            .unwrap_or_default();
        let mut spans = self.0.lock().unwrap();
        if let Some((_, fields)) = spans.iter_mut().rev().find(|(n, _)| *n == name) {
            values.record(&mut Fields(fields));
        }
    }
}

#[tokio::test]
async fn calls_are_execute_tool_spans_with_gen_ai_attributes() {
    let spans: Spans = Arc::default();
    let subscriber = tracing_subscriber::registry().with(Capture(spans.clone()));
    let _guard = tracing::subscriber::set_default(subscriber);
    let reg = Registry::new();
    reg.register(FnTool::new(
        ToolSpec::new(
            "echo",
            "Echo. Use this when testing.",
            json!({"type": "object"}),
        ),
        |a, _| async move { Ok(ToolOutput::Data(a)) },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    rt.invoke(
        ToolCall::new("call-42", "echo", json!({})),
        &CallOptions::default(),
    )
    .await;
    let spans = spans.lock().unwrap();
    let (name, fields) = spans.iter().find(|(n, _)| n == "execute_tool").unwrap();
    assert_eq!(name, "execute_tool");
    assert_eq!(fields["otel.name"], "execute_tool echo");
    assert_eq!(fields["gen_ai.operation.name"], "execute_tool");
    assert_eq!(fields["gen_ai.tool.name"], "echo");
    assert_eq!(fields["gen_ai.tool.call.id"], "call-42");
    assert_eq!(fields["toolwright.status"], "success");
}
