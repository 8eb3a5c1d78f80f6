//! The spans of a run, after the OpenTelemetry GenAI semantic conventions: `invoke_agent` around
//! one run, `chat {model}` around each model turn. The runtime's `execute_tool` spans open inside
//! the run's span (the calls run in the run's task), so they are its children.
//!
//! Only `tracing` is used here: the `otel.name`, `otel.kind` and `otel.status_code` fields are
//! the conventions of `tracing-opentelemetry`, which a host (the CLI's `otel` feature) installs
//! to export the spans; without it they are ordinary `info` spans.

use crate::agent::{StopReason, Trace};
use crate::message::Reply;
use crate::provider::{ProviderError, ProviderInfo};
use tracing::Span;
use tracing::field::Empty;

/// Counts as `i64`: exporters map unsigned integers to strings (tracing-opentelemetry records a
/// `u64` through its `Debug` form), and OpenTelemetry's integer attributes are signed.
fn int(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// The span of one run: `invoke_agent` (or `invoke_agent {name}`), kind internal.
pub(crate) fn agent_span(name: Option<&str>, info: &ProviderInfo, conversation: &str) -> Span {
    let otel_name = name.map_or_else(
        || "invoke_agent".to_string(),
        |n| format!("invoke_agent {n}"),
    );
    tracing::info_span!(
        "invoke_agent",
        otel.name = %otel_name,
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = %info.provider,
        gen_ai.request.model = info.model.as_deref(),
        gen_ai.agent.name = name,
        gen_ai.conversation.id = %conversation,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        error.type = Empty,
        toolwright.stop = Empty,
    )
}

/// Records how the run ended on its span: tokens summed over the turns, the stop reason, and
/// `error.type` when the provider failed.
pub(crate) fn finish_agent_span(span: &Span, trace: &Trace, provider_error: Option<&str>) {
    span.record("gen_ai.usage.input_tokens", int(trace.usage.input_tokens));
    span.record("gen_ai.usage.output_tokens", int(trace.usage.output_tokens));
    let stop = match &trace.stop {
        StopReason::Answered => "answered",
        StopReason::MaxSteps => "max_steps",
        StopReason::RepeatedFailingCall { .. } => "repeated_failing_call",
        StopReason::ProviderError { .. } => "provider_error",
    };
    span.record("toolwright.stop", stop);
    if let Some(kind) = provider_error {
        span.record("error.type", kind);
        span.record("otel.status_code", "error");
    }
}

/// The span of one model turn: `chat {model}` (`chat` when the model is not known), kind client.
pub(crate) fn chat_span(info: &ProviderInfo, step: u32) -> Span {
    let otel_name = info
        .model
        .as_deref()
        .map_or_else(|| "chat".to_string(), |m| format!("chat {m}"));
    tracing::info_span!(
        "chat",
        otel.name = %otel_name,
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = %info.provider,
        gen_ai.request.model = info.model.as_deref(),
        server.address = info.server_address.as_deref(),
        server.port = info.server_port.map(i64::from),
        gen_ai.response.model = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        error.type = Empty,
        toolwright.step = i64::from(step),
    )
}

/// Records the answer of a model turn on its span: the answering model and the token counts the
/// provider reported, or `error.type` when it failed.
pub(crate) fn finish_chat_span(span: &Span, result: &Result<Reply, ProviderError>) {
    match result {
        Ok(reply) => {
            if let Some(m) = reply.model.as_deref() {
                span.record("gen_ai.response.model", m);
            }
            if let Some(u) = reply.usage {
                span.record("gen_ai.usage.input_tokens", int(u.input_tokens));
                span.record("gen_ai.usage.output_tokens", int(u.output_tokens));
            }
        }
        Err(e) => {
            span.record("error.type", e.error_type().as_ref());
            span.record("otel.status_code", "error");
        }
    }
}
