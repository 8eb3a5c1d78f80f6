//! The agent loop with scripted providers: deterministic behaviour of every rule.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::demo_runtime;
use futures::StreamExt;
use serde_json::json;
use std::sync::Arc;
use toolwright_agent::providers::prompted::PromptedProvider;
use toolwright_agent::providers::scripted::{Recorder, Script, ScriptedProvider};
use toolwright_agent::{
    Agent, AgentConfig, AgentError, AgentStreamEvent, Mode, Reply, Role, StopReason,
};
use toolwright_core::{DefinitionOnly, Registry, ToolCall, ToolSpec};
use toolwright_runtime::Runtime;

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(id, name, args)
}

/// `n` replies that each call the calculator (never an answer).
fn calculations(n: usize) -> Vec<Reply> {
    (0..n)
        .map(|i| {
            Reply::calls(vec![call(
                &format!("c{i}"),
                "calculate",
                json!({"expression": format!("{i}+1")}),
            )])
        })
        .collect()
}

#[tokio::test]
async fn a_call_repeated_after_an_error_stops_the_run() {
    let bad = json!({"city": "Atlantis"});
    let p = ScriptedProvider::from_replies(vec![
        Reply::calls(vec![call("a", "get_weather", bad.clone())]),
        Reply::calls(vec![call("b", "get_weather", bad.clone())]),
        Reply::text("never reached"),
    ]);
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(Arc::new(p), rt, AgentConfig::default());
    let trace = agent.run_trace("weather in Atlantis").await;
    assert_eq!(
        trace.stop,
        StopReason::RepeatedFailingCall {
            tool: "get_weather".into()
        }
    );
    assert_eq!(trace.calls.len(), 2);
    assert!(
        trace.calls[0].ran && !trace.calls[1].ran,
        "the repeat is not run"
    );
    assert!(trace.answer.unwrap().contains("NOT_FOUND"));
    // The conversation stays well formed: every call has its result.
    let tool_results = trace
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .count();
    assert_eq!(tool_results, 2);
}

#[tokio::test]
async fn the_step_limit_ends_a_run_without_an_answer() {
    let replies = calculations(5);
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(
        Arc::new(ScriptedProvider::from_replies(replies)),
        rt,
        AgentConfig {
            max_steps: 3,
            ..AgentConfig::default()
        },
    );
    let trace = agent.run_trace("count").await;
    assert_eq!(trace.stop, StopReason::MaxSteps);
    assert_eq!(trace.steps.len(), 3);
    assert!(trace.answer.is_none());
}

#[tokio::test]
async fn validation_budgets_run_out_and_say_stop() {
    // Three different invalid attempts in the same step budget: the third is marked final.
    let replies = vec![
        Reply::calls(vec![call("a", "query_users", json!({"role": "wizard"}))]),
        Reply::calls(vec![call("b", "query_users", json!({"role": "sorcerer"}))]),
        Reply::calls(vec![call("c", "query_users", json!({"role": "mage"}))]),
        Reply::text("I could not find that role."),
    ];
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(
        Arc::new(ScriptedProvider::from_replies(replies)),
        rt,
        AgentConfig::default(),
    );
    let trace = agent.run_trace("list the wizards").await;
    assert_eq!(trace.stop, StopReason::Answered);
    let last = &trace.calls[2].envelope;
    assert_eq!(last.meta.attempts_left, 0);
    assert!(!last.error().unwrap().retryable);
    assert!(trace.calls[0].envelope.error().unwrap().retryable);
}

#[tokio::test]
async fn plan_execute_runs_the_plan_once_in_sequence() {
    let replies = vec![
        Reply {
            tool_calls: vec![
                call(
                    "p1",
                    "convert_currency",
                    json!({"amount": 5, "from_currency": "USD", "to_currency": "XXX"}),
                ),
                call("p2", "calculate", json!({"expression": "2+2"})),
            ],
            plan: vec!["convert".into(), "add".into()],
            ..Reply::default()
        },
        // The naive baseline does not run a second round of calls.
        Reply::calls(vec![call("p3", "calculate", json!({"expression": "3+3"}))]),
    ];
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(
        Arc::new(ScriptedProvider::from_replies(replies)),
        rt,
        AgentConfig {
            mode: Mode::PlanExecute,
            ..AgentConfig::default()
        },
    );
    let trace = agent.run_trace("convert and add").await;
    assert_eq!(trace.stop, StopReason::Answered);
    assert_eq!(trace.calls.len(), 2, "only the plan ran");
    assert!(
        trace.calls[0].envelope.is_error(),
        "no correction in the baseline"
    );
    assert_eq!(
        trace.steps[0].plan,
        vec!["convert".to_string(), "add".to_string()]
    );
    let answer = trace.answer.unwrap();
    assert!(answer.contains("2+2 = 4"), "{answer}");
    assert!(
        trace.steps[1]
            .notes
            .iter()
            .any(|n| n.contains("plan-execute"))
    );
}

#[tokio::test]
async fn old_tool_results_are_shortened_at_the_context_budget() {
    let replies = vec![
        Reply::calls(vec![call("a", "get_weather", json!({"city": "Paris"}))]),
        Reply::calls(vec![call("b", "get_weather", json!({"city": "Tokyo"}))]),
        Reply::text("done"),
    ];
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(
        Arc::new(ScriptedProvider::from_replies(replies)),
        rt,
        AgentConfig {
            context_budget_chars: 600,
            ..AgentConfig::default()
        },
    );
    let trace = agent.run_trace("weather twice").await;
    assert_eq!(trace.stop, StopReason::Answered);
    let results: Vec<&str> = trace
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert!(results[0].contains("shortened"), "{}", results[0]);
    assert!(
        !results[1].contains("shortened"),
        "the latest result stays whole"
    );
    assert!(trace.notes.iter().any(|n| n.contains("shortened")));
}

#[tokio::test]
async fn definition_only_tools_are_validated_and_recorded_not_run() {
    let reg = Registry::new();
    reg.register(DefinitionOnly::new(ToolSpec::new(
        "book_flight",
        "Book a flight. Use this when the user wants to fly somewhere.",
        json!({"type": "object", "properties": {"to": {"type": "string"}, "seats": {"type": "integer", "minimum": 1}},
               "required": ["to"], "additionalProperties": false}),
    )))
    .unwrap();
    let replies = vec![
        Reply::calls(vec![call(
            "a",
            "book_flight",
            json!({"to": "Lisbon", "seats": 0}),
        )]),
        Reply::calls(vec![call(
            "b",
            "book_flight",
            json!({"to": "Lisbon", "seats": 2}),
        )]),
        Reply::text("Booked (not really)."),
    ];
    let mut agent = Agent::new(
        Arc::new(ScriptedProvider::from_replies(replies)),
        Runtime::new(Arc::new(reg)),
        AgentConfig::default(),
    );
    let trace = agent.run_trace("fly me to Lisbon").await;
    assert_eq!(
        trace.calls[0]
            .envelope
            .error()
            .as_ref()
            .unwrap()
            .code
            .as_str(),
        "VALIDATION_ERROR"
    );
    assert_eq!(
        trace.calls[1].envelope.data.as_ref().unwrap()["validated"],
        true
    );
}

#[tokio::test]
async fn chat_keeps_the_conversation() {
    let p = ScriptedProvider::from_replies(vec![Reply::text("Hello!"), Reply::text("Still here.")]);
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(Arc::new(p), rt, AgentConfig::default());
    agent.run_trace("hi").await;
    let t = agent.run_trace("are you there?").await;
    assert_eq!(t.messages.len(), 4);
    agent.reset();
    assert!(agent.conversation().is_empty());
}

#[tokio::test]
async fn prompted_json_reprompts_once_with_the_parse_error() {
    let inner = Recorder::new(ScriptedProvider::from_replies(vec![
        Reply::text("I will call the calculator now!"),
        Reply::text(
            "```json\n{'requires_tools': true, 'thought': 'math', 'plan': ['calculate'], 'tool_calls': [{'tool': 'calculate', 'args': {'expression': '17*23',},}],}\n```",
        ),
        Reply::text(
            r#"{"requires_tools": false, "direct_response": "17 × 23 = 391", "tool_calls": []} Hope that helps!"#,
        ),
    ]));
    let inner = Arc::new(inner);
    let p = PromptedProvider::new(inner.clone());
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(Arc::new(p), rt, AgentConfig::default());
    let trace = agent.run_trace("What is 17 times 23?").await;
    assert_eq!(trace.stop, StopReason::Answered);
    assert_eq!(trace.answer.as_deref(), Some("17 × 23 = 391"));
    assert_eq!(trace.calls[0].envelope.data, Some(json!(391)));
    assert_eq!(trace.steps[0].thought.as_deref(), Some("math"));
    assert!(trace.steps[0].notes[0].contains("re-prompted"));
    let script = inner.script();
    assert!(
        script.turns[1]
            .request
            .as_ref()
            .unwrap()
            .last
            .contains("could not be read: no JSON object")
    );
    // The inner model is asked without native tools; the tools are in the system prompt.
    assert!(script.turns[0].request.as_ref().unwrap().tools.is_empty());
}

#[tokio::test]
async fn prompted_json_gives_up_after_one_reprompt() {
    let p = PromptedProvider::new(ScriptedProvider::from_replies(vec![
        Reply::text("no json"),
        Reply::text("still no json"),
    ]));
    let (rt, _d) = demo_runtime();
    let mut agent = Agent::new(Arc::new(p), rt, AgentConfig::default());
    let trace = agent.run_trace("hi").await;
    assert_eq!(trace.answer.as_deref(), Some("still no json"));
    assert!(
        trace.steps[0]
            .notes
            .iter()
            .any(|n| n.contains("returned as text"))
    );
}

#[tokio::test]
async fn recordings_replay_identically() {
    let original = vec![
        Reply::calls(vec![call("a", "calculate", json!({"expression": "6*7"}))]),
        Reply::text("42"),
    ];
    let rec = Arc::new(Recorder::new(ScriptedProvider::from_replies(original)));
    let (rt, _d) = demo_runtime();
    let t1 = Agent::new(rec.clone(), rt, AgentConfig::default())
        .run_trace("6*7?")
        .await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.json");
    rec.script().save(&path).unwrap();
    let replay = ScriptedProvider::from_file(&path).unwrap();
    let (rt, _d2) = demo_runtime();
    let t2 = Agent::new(Arc::new(replay), rt, AgentConfig::default())
        .run_trace("6*7?")
        .await;
    assert_eq!(t1.answer, t2.answer);
    assert_eq!(t1.calls.len(), t2.calls.len());
    assert_eq!(Script::load(&path).unwrap().turns.len(), 2);
    // A replay asked for more than it has is a clear error.
    let (rt, _d3) = demo_runtime();
    let mut a = Agent::new(
        Arc::new(ScriptedProvider::from_file(&path).unwrap()),
        rt,
        AgentConfig::default(),
    );
    a.run_trace("6*7?").await;
    let t3 = a.run_trace("again").await;
    let StopReason::ProviderError { message } = t3.stop else {
        panic!()
    };
    assert!(message.contains("turn 3 was asked"), "{message}");
}

/// The observer sees the run as it happens, in order: the routing, each model turn, each call.
#[tokio::test]
async fn the_observer_sees_routing_then_each_step_in_order() {
    use std::sync::Mutex;
    use toolwright_agent::{AgentEvent, Observer};
    struct Log(Mutex<Vec<String>>);
    impl Observer for Log {
        fn event(&self, e: &AgentEvent<'_>) {
            let line = match e {
                AgentEvent::Routed { offered, .. } => format!("routed {}", offered.len()),
                AgentEvent::ModelStarted { step } => format!("model {step}"),
                AgentEvent::ModelFinished { step, .. } => format!("model {step} done"),
                AgentEvent::CallStarted { call, .. } => format!("call {}", call.name),
                AgentEvent::CallFinished { record } => format!("call {} done", record.call.name),
            };
            self.0.lock().unwrap().push(line);
        }
    }
    let p = ScriptedProvider::from_replies(vec![
        Reply::calls(vec![call("a", "calculate", json!({"expression": "2+2"}))]),
        Reply::text("4"),
    ]);
    let (rt, _d) = demo_runtime();
    let tools = rt.registry().specs().len();
    let log = Arc::new(Log(Mutex::new(Vec::new())));
    let mut agent = Agent::new(Arc::new(p), rt, AgentConfig::default()).with_observer(log.clone());
    let trace = agent.run_trace("2+2?").await;
    assert_eq!(trace.answer.as_deref(), Some("4"));
    assert_eq!(
        *log.0.lock().unwrap(),
        vec![
            format!("routed {tools}"),
            "model 1".into(),
            "model 1 done".into(),
            "call calculate".into(),
            "call calculate done".into(),
            "model 2".into(),
            "model 2 done".into(),
        ]
    );
}

#[tokio::test]
async fn run_returns_the_answer_or_a_typed_error_with_the_trace() {
    let (rt, _d) = demo_runtime();
    let replies = calculations(5);
    let mut agent = Agent::builder(ScriptedProvider::from_replies(replies))
        .runtime(rt)
        .max_steps(2)
        .build();
    let err = agent.run("count").await.unwrap_err();
    assert!(
        matches!(err, AgentError::MaxSteps { steps: 2, .. }),
        "{err}"
    );
    assert_eq!(err.trace().calls.len(), 2);

    let (rt, _d) = demo_runtime();
    let mut agent = Agent::builder(ScriptedProvider::from_replies(vec![Reply::text("Hi!")]))
        .runtime(rt)
        .build();
    let answer = agent.run("hello").await.unwrap();
    assert_eq!(answer.text, "Hi!");
    assert_eq!(answer.trace.stop, StopReason::Answered);
    // The provider has nothing left to say: a provider error, typed.
    let err = agent.run("again").await.unwrap_err();
    assert!(matches!(err, AgentError::Provider { .. }), "{err}");
}

#[tokio::test]
async fn run_stream_yields_every_event_in_order_then_done() {
    let (rt, _d) = demo_runtime();
    let p = ScriptedProvider::from_replies(vec![
        Reply::calls(vec![call("a", "calculate", json!({"expression": "6*7"}))]),
        Reply::text("42"),
    ]);
    let mut agent = Agent::builder(p).runtime(rt).build();
    let events: Vec<AgentStreamEvent> = agent.run_stream("6 times 7?").collect().await;
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            AgentStreamEvent::ModelStarted { .. } => "model",
            AgentStreamEvent::ModelFinished { .. } => "reply",
            AgentStreamEvent::CallStarted { .. } => "call",
            AgentStreamEvent::CallFinished(_) => "envelope",
            AgentStreamEvent::Done(_) => "done",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "model", "reply", "call", "envelope", "model", "reply", "done"
        ]
    );
    let AgentStreamEvent::CallFinished(rec) = &events[3] else {
        panic!()
    };
    assert_eq!(rec.envelope.data, Some(json!(42)));
    let AgentStreamEvent::Done(Ok(answer)) = &events[6] else {
        panic!("{:?}", events[6])
    };
    assert_eq!(answer.text, "42");
    // The agent is usable again afterwards, and its conversation kept the run.
    assert_eq!(agent.conversation().len(), 4);
}

/// Records the queries it ranks; ranks every tool of `names` with score 1.
struct RecordingRanker {
    names: Vec<String>,
    queries: std::sync::Mutex<Vec<String>>,
}

impl toolwright_agent::Ranker for RecordingRanker {
    fn rank(&self, query: &str, _k: usize) -> Vec<toolwright_agent::Candidate> {
        self.queries.lock().unwrap().push(query.to_string());
        self.names
            .iter()
            .map(|n| toolwright_agent::Candidate {
                name: n.clone(),
                score: 1.0,
                similarity: None,
                lexical: None,
            })
            .collect()
    }
}

#[tokio::test]
async fn an_answer_to_a_question_for_an_input_is_routed_with_the_request_that_asked() {
    let mut asked = Reply::text("I can do this with `get_weather`, but I need `city`.");
    asked.needs_input = vec!["city".into()];
    let p =
        ScriptedProvider::from_replies(vec![asked, Reply::text("Sunny."), Reply::text("Hello.")]);
    let (rt, _d) = demo_runtime();
    let ranker = Arc::new(RecordingRanker {
        names: rt
            .registry()
            .specs()
            .iter()
            .map(|s| s.name.clone())
            .collect(),
        queries: std::sync::Mutex::new(Vec::new()),
    });
    let mut config = AgentConfig::default();
    config.routing.threshold = 0;
    let mut agent = Agent::new(Arc::new(p), rt, config).with_ranker(ranker.clone());
    let first = agent.run_trace("what's the weather like").await;
    assert_eq!(first.steps[0].needs_input, ["city"]);
    agent.run_trace("Oslo").await;
    // Answered: the next request stands alone again.
    agent.run_trace("hi").await;
    assert_eq!(
        *ranker.queries.lock().unwrap(),
        [
            "what's the weather like",
            "what's the weather like Oslo",
            "hi"
        ]
    );
}
