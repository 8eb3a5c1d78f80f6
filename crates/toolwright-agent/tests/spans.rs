//! The spans of a run, seen through a plain `tracing` layer (no OpenTelemetry): `invoke_agent`
//! with `chat` and `execute_tool` children, and the GenAI attributes they carry.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::demo_runtime;
use serde_json::json;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use toolwright_agent::providers::scripted::ScriptedProvider;
use toolwright_agent::{Agent, AgentConfig, Reply, StopReason, Usage};
use toolwright_core::ToolCall;
use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

#[derive(Debug, Clone)]
struct Captured {
    name: String,
    id: u64,
    /// Index of the parent in the captured list.
    parent: Option<usize>,
    fields: HashMap<String, String>,
}

impl Captured {
    fn get(&self, k: &str) -> Option<&str> {
        self.fields.get(k).map(String::as_str)
    }
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, f: &Field, v: &dyn Debug) {
        self.0.insert(f.name().to_string(), format!("{v:?}"));
    }
    fn record_str(&mut self, f: &Field, v: &str) {
        self.0.insert(f.name().to_string(), v.to_string());
    }
    fn record_u64(&mut self, f: &Field, v: u64) {
        self.0.insert(f.name().to_string(), v.to_string());
    }
    fn record_i64(&mut self, f: &Field, v: i64) {
        self.0.insert(f.name().to_string(), v.to_string());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let parent_id = ctx
            .span(id)
            .and_then(|s| s.parent())
            .map(|p| p.id().into_u64());
        let mut spans = self.0.lock().unwrap();
        // Ids are reused once a span closes: the parent is alive, so it is the latest holder.
        let parent = parent_id.and_then(|p| spans.iter().rposition(|s| s.id == p));
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        spans.push(Captured {
            name: attrs.metadata().name().to_string(),
            id: id.into_u64(),
            parent,
            fields,
        });
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some(s) = spans.iter_mut().rev().find(|s| s.id == id.into_u64()) {
            values.record(&mut Fields(&mut s.fields));
        }
    }
}

fn reply(r: Reply, input: u64, output: u64) -> Reply {
    Reply {
        usage: Some(Usage {
            input_tokens: input,
            output_tokens: output,
        }),
        model: Some("scripted-model-1".into()),
        ..r
    }
}

async fn run_captured(replies: Vec<Reply>) -> (toolwright_agent::Trace, Vec<Captured>) {
    let capture = Capture::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let (rt, _dir) = demo_runtime();
    let mut agent = Agent::new(
        Arc::new(ScriptedProvider::from_replies(replies)),
        rt,
        AgentConfig {
            name: Some("tester".into()),
            ..AgentConfig::default()
        },
    );
    let trace = agent.run_trace("What is 17*23?").await;
    let spans = capture.0.lock().unwrap().clone();
    (trace, spans)
}

#[tokio::test]
async fn a_run_is_an_invoke_agent_span_over_its_chat_and_execute_tool_spans() {
    let (trace, spans) = run_captured(vec![
        reply(
            Reply::calls(vec![ToolCall::new(
                "c1",
                "calculate",
                json!({"expression": "17*23"}),
            )]),
            11,
            5,
        ),
        reply(Reply::text("391"), 20, 2),
    ])
    .await;
    assert_eq!(trace.stop, StopReason::Answered);

    let agents: Vec<usize> = (0..spans.len())
        .filter(|&i| spans[i].name == "invoke_agent")
        .collect();
    assert_eq!(agents.len(), 1, "{spans:#?}");
    let a = &spans[agents[0]];
    assert_eq!(a.parent, None);
    assert_eq!(a.get("otel.name"), Some("invoke_agent tester"));
    assert_eq!(a.get("otel.kind"), Some("internal"));
    assert_eq!(a.get("gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(a.get("gen_ai.agent.name"), Some("tester"));
    assert_eq!(a.get("gen_ai.provider.name"), Some("scripted"));
    assert_eq!(a.get("gen_ai.usage.input_tokens"), Some("31"));
    assert_eq!(a.get("gen_ai.usage.output_tokens"), Some("7"));
    assert_eq!(a.get("toolwright.stop"), Some("answered"));
    assert_eq!(a.get("error.type"), None);

    let chats: Vec<&Captured> = spans.iter().filter(|s| s.name == "chat").collect();
    assert_eq!(chats.len(), 2);
    for (c, (i, o)) in chats.iter().zip([("11", "5"), ("20", "2")]) {
        assert_eq!(c.parent, Some(agents[0]));
        assert_eq!(c.get("otel.kind"), Some("client"));
        assert_eq!(c.get("gen_ai.operation.name"), Some("chat"));
        assert_eq!(c.get("gen_ai.response.model"), Some("scripted-model-1"));
        assert_eq!(c.get("gen_ai.usage.input_tokens"), Some(i));
        assert_eq!(c.get("gen_ai.usage.output_tokens"), Some(o));
    }

    let tools: Vec<&Captured> = spans.iter().filter(|s| s.name == "execute_tool").collect();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].parent, Some(agents[0]));
    assert_eq!(tools[0].get("gen_ai.tool.name"), Some("calculate"));
}

#[tokio::test]
async fn a_provider_failure_sets_error_type_on_the_chat_and_the_run() {
    // The script has no reply: the provider fails on the first turn.
    let (trace, spans) = run_captured(Vec::new()).await;
    assert!(matches!(trace.stop, StopReason::ProviderError { .. }));
    let chat = spans.iter().find(|s| s.name == "chat").unwrap();
    assert_eq!(chat.get("error.type"), Some("script"));
    assert_eq!(chat.get("otel.status_code"), Some("error"));
    assert_eq!(chat.get("gen_ai.usage.input_tokens"), None);
    let agent = spans.iter().find(|s| s.name == "invoke_agent").unwrap();
    assert_eq!(agent.get("error.type"), Some("script"));
    assert_eq!(agent.get("otel.status_code"), Some("error"));
    assert_eq!(agent.get("toolwright.stop"), Some("provider_error"));
}
