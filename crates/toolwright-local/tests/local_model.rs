//! Embedded-model tests: they need the GGUF (`toolwright model fetch`, or `$TOOLWRIGHT_MODEL`).
//! Without it they fail with the fetch command, unless `TOOLWRIGHT_SKIP_MODEL=1`.
//!
//! `EXPLORE="query|query" cargo test -p toolwright-local --features llama --test local_model
//! explore -- --ignored --nocapture` prints traces for other queries.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(feature = "llama")]

use serde_json::{Value, json};
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use toolwright_agent::{Agent, AgentConfig, Candidate, Message, Provider, StopReason, Trace, Turn};
use toolwright_core::Registry;
use toolwright_local::{LocalConfig, LocalProvider};
use toolwright_runtime::Runtime;

fn provider() -> Option<Arc<LocalProvider>> {
    static P: OnceLock<Option<Arc<LocalProvider>>> = OnceLock::new();
    P.get_or_init(|| {
        let path =
            toolwright_local::model::find_model_or_skip().unwrap_or_else(|e| panic!("{e}"))?;
        // As the CLI runs it over the demo tools: with the demo's result sentences.
        let mut config = LocalConfig::new(path);
        config.summaries = Some(toolwright_local::Summarizer::new(
            toolwright_demo::summarize,
        ));
        Some(Arc::new(
            LocalProvider::new(config).expect("the model loads"),
        ))
    })
    .clone()
}

fn demo() -> (Arc<Registry>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let reg = toolwright_demo::registry(toolwright_demo::DemoConfig {
        root: dir.path().to_path_buf(),
    })
    .unwrap();
    (Arc::new(reg), dir)
}

/// Runs `query` with the demo tools; checks that every generated call validates. The time is
/// printed, not asserted: `benches/demo_run.rs` measures it.
async fn run(query: &str) -> Option<Trace> {
    let p = provider()?;
    let (reg, _dir) = demo();
    let mut agent = Agent::new(p, Runtime::new(reg.clone()), AgentConfig::default());
    let t0 = Instant::now();
    let trace = agent.run_trace(query).await;
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "{query:?}: {secs:.2} s (model {} ms)\n{}",
        trace.model_ms,
        serde_json::to_string_pretty(&json!({
            "answer": trace.answer, "stop": trace.stop, "routed": trace.routed,
            "calls": trace.calls.iter().map(|c| json!({"call": c.call, "status": c.envelope.status()})).collect::<Vec<_>>(),
            "notes": trace.steps.iter().flat_map(|s| s.notes.clone()).collect::<Vec<_>>(),
            "usage": trace.usage,
        }))
        .unwrap()
    );
    for c in &trace.calls {
        let entry = reg
            .get(&c.call.name)
            .unwrap_or_else(|| panic!("unknown tool {}", c.call.name));
        entry
            .prepare(c.call.arguments.clone(), false)
            .unwrap_or_else(|e| {
                panic!(
                    "{} {} does not validate: {e:?}",
                    c.call.name, c.call.arguments
                )
            });
    }
    Some(trace)
}

fn successful_calls(t: &Trace) -> Vec<(String, Value)> {
    t.calls
        .iter()
        .filter(|c| !c.envelope.is_error())
        .map(|c| (c.call.name.to_string(), c.call.arguments.clone()))
        .collect()
}

#[tokio::test]
async fn convert_100_usd_to_eur() {
    let Some(t) = run("Convert 100 USD to EUR").await else {
        return;
    };
    assert_eq!(t.stop, StopReason::Answered);
    let calls = successful_calls(&t);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].0, "convert_currency");
    let a = &calls[0].1;
    assert_eq!(a["amount"].as_f64(), Some(100.0));
    assert_eq!(a["from_currency"], "USD");
    assert_eq!(a["to_currency"], "EUR");
    let data = t.calls.last().unwrap().envelope.data.clone().unwrap();
    let answer = t.answer.unwrap();
    let converted = toolwright_local::compose::format_number(data["converted"].as_f64().unwrap());
    assert!(answer.contains(&converted), "{answer} lacks {converted}");
    assert!(
        answer.contains(data["rates_date"].as_str().unwrap()),
        "{answer} lacks the date"
    );
}

#[tokio::test]
async fn weather_in_paris() {
    let Some(t) = run("What's the weather in Paris?").await else {
        return;
    };
    let calls = successful_calls(&t);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].0, "get_weather");
    assert_eq!(calls[0].1["city"], "Paris");
    assert!(t.answer.unwrap().contains("Paris"));
}

#[tokio::test]
async fn seventeen_times_twenty_three() {
    let Some(t) = run("What is 17 times 23?").await else {
        return;
    };
    assert_eq!(t.stop, StopReason::Answered);
    assert!(
        t.calls.iter().all(|c| c.call.name == "calculate"),
        "only calculate is called"
    );
    let ok = t
        .calls
        .iter()
        .find(|c| !c.envelope.is_error())
        .expect("a successful calculate call");
    assert_eq!(ok.envelope.data, Some(json!(391)));
    assert!(t.answer.unwrap().contains("391"));
}

#[tokio::test]
async fn small_talk_gets_a_direct_answer() {
    let Some(t) = run("How are you doing?").await else {
        return;
    };
    assert_eq!(t.stop, StopReason::Answered);
    assert!(t.calls.is_empty(), "no tool call: {:?}", t.calls);
    assert!(!t.answer.unwrap().trim().is_empty());
}

/// With the tool fixed, every demo tool gets a call that validates against its schema.
#[tokio::test]
async fn every_generated_call_validates() {
    let Some(p) = provider() else { return };
    let (reg, _dir) = demo();
    let queries = [
        ("convert_currency", "How much is 250 GBP in JPY?"),
        ("get_weather", "Is it raining in Tokyo?"),
        ("calculate", "Compute 45 divided by 9"),
        ("query_users", "Who are the admins in engineering?"),
        ("search_files", "Find the files whose name contains report"),
        ("read_file", "Show me what notes.txt says"),
        ("delete_file", "Delete the file old.log"),
    ];
    for (tool, q) in queries {
        let spec = reg.get(tool).unwrap().spec().clone();
        let msgs = [Message::user(q)];
        let ranking = [Candidate {
            name: tool.to_string(),
            score: 10.0,
            similarity: None,
            lexical: None,
        }];
        let tools = [spec];
        let reply = p
            .complete(Turn {
                messages: &msgs,
                tools: &tools,
                ranking: Some(&ranking),
            })
            .await
            .unwrap();
        assert_eq!(reply.tool_calls.len(), 1, "{q}: {reply:?}");
        let c = &reply.tool_calls[0];
        assert_eq!(c.name, tool);
        reg.get(tool)
            .unwrap()
            .prepare(c.arguments.clone(), false)
            .unwrap_or_else(|e| panic!("{q}: {} does not validate: {e:?}", c.arguments));
        eprintln!("{q:?} -> {tool} {}", c.arguments);
    }
}

#[tokio::test]
#[ignore = "exploration: prints traces for $EXPLORE queries"]
async fn explore() {
    let env = std::env::var("EXPLORE").unwrap_or_default();
    for q in env.split('|').filter(|s| !s.is_empty()) {
        run(q).await;
    }
}

/// A router that always ranks the same tools (the order a hybrid router gave for this query
/// with the published `server-everything` MCP server imported beside the demo tools).
struct Fixed(Vec<&'static str>);
impl toolwright_agent::Ranker for Fixed {
    fn rank(&self, _query: &str, k: usize) -> Vec<Candidate> {
        self.0
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, n)| Candidate {
                name: n.to_string(),
                score: 1.0 - i as f32 * 0.1,
                similarity: Some(0.6 - i as f32 * 0.05),
                lexical: Some(1.0),
            })
            .collect()
    }
}

/// When the router's first tool keeps getting rejected arguments (the model wrote
/// `"25 + 25 = 50"` for `calculate`, twice), the provider tries the router's next candidate
/// instead of repeating itself: the run ends with the sum, not with a stop.
#[tokio::test]
async fn a_repeated_rejected_call_falls_back_to_the_next_candidate() {
    let Some(p) = provider() else { return };
    let (reg, _dir) = demo();
    let sum = toolwright_core::FnTool::new(
        toolwright_core::ToolSpec::new(
            "get-sum",
            "Returns the sum of two numbers",
            json!({"type": "object", "properties": {
                "a": {"type": "number", "description": "First number"},
                "b": {"type": "number", "description": "Second number"}},
                "required": ["a", "b"], "additionalProperties": false}),
        ),
        |args, _| async move {
            let a = args["a"].as_f64().unwrap_or(0.0);
            let b = args["b"].as_f64().unwrap_or(0.0);
            Ok(toolwright_core::ToolOutput::Data(json!({"sum": a + b})))
        },
    );
    reg.register(sum).unwrap();
    let mut agent = Agent::new(p, Runtime::new(reg.clone()), AgentConfig::default())
        .with_ranker(Arc::new(Fixed(vec!["calculate", "get-sum", "get_weather"])));
    let trace = agent.run_trace("What is the sum of 17 and 25?").await;
    let ok = successful_calls(&trace);
    assert!(!ok.is_empty(), "{:#?}", trace.steps);
    assert_eq!(trace.stop, StopReason::Answered, "{:#?}", trace.steps);
    assert!(
        trace.answer.as_deref().unwrap_or_default().contains("42"),
        "{:?} {:#?}",
        trace.answer,
        trace.steps
    );
}

/// The fallback never writes what the request did not ask for: with a tool that deletes
/// records second in the ranking, the repeated rejection of `calculate` does not call it.
#[tokio::test]
async fn a_rejected_call_does_not_fall_back_to_a_write_the_request_did_not_ask_for() {
    let Some(p) = provider() else { return };
    let (reg, _dir) = demo();
    let deleted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = deleted.clone();
    let delete = toolwright_core::FnTool::new(
        toolwright_core::ToolSpec::new(
            "delete_records",
            "Delete records from a table",
            json!({"type": "object", "properties": {"table": {"type": "string"}},
                "required": ["table"]}),
        ),
        move |_, _| {
            let seen = seen.clone();
            async move {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(toolwright_core::ToolOutput::Data(json!({"deleted": 3})))
            }
        },
    );
    reg.register(delete).unwrap();
    let mut agent = Agent::new(p, Runtime::new(reg.clone()), AgentConfig::default()).with_ranker(
        Arc::new(Fixed(vec!["calculate", "delete_records", "get_weather"])),
    );
    let trace = agent.run_trace("What is the sum of 17 and 25?").await;
    let rejected = trace
        .calls
        .iter()
        .filter(|c| c.call.name == "calculate" && c.envelope.is_error())
        .count();
    // The situation the fallback is for: the same rejected call, written twice.
    assert!(rejected >= 2, "{:#?}", trace.steps);
    assert_eq!(
        deleted.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "{:#?}",
        trace.steps
    );
    assert!(trace.calls.iter().all(|c| c.call.name != "delete_records"));
}

/// A tool registered for the "needs input" tests: counts its calls, returns what it was given.
fn counting(
    name: &str,
    description: &str,
    schema: Value,
) -> (toolwright_core::FnTool, Arc<std::sync::atomic::AtomicUsize>) {
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = calls.clone();
    let tool = toolwright_core::FnTool::new(
        toolwright_core::ToolSpec::new(name, description, schema),
        move |args, _| {
            let seen = seen.clone();
            async move {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(toolwright_core::ToolOutput::Data(json!({"done": args})))
            }
        },
    );
    (tool, calls)
}

/// "reboot my droplet" names no droplet: the provider asks for its id instead of making one
/// up (no call, the trace says which input), and the user's answer completes the request.
#[tokio::test]
async fn a_required_identifier_the_request_lacks_is_asked_for_and_the_answer_completes_it() {
    let Some(p) = provider() else { return };
    let (reg, _dir) = demo();
    let (reboot, reboots) = counting(
        "reboot_droplet",
        "Reboot a droplet",
        json!({"type": "object", "properties": {"droplet_id": {"type": "integer",
            "description": "ID of the droplet to reboot"}}, "required": ["droplet_id"]}),
    );
    reg.register(reboot).unwrap();
    let mut agent = Agent::new(p, Runtime::new(reg.clone()), AgentConfig::default())
        .with_ranker(Arc::new(Fixed(vec!["reboot_droplet", "calculate"])));
    let asked = agent.run_trace("reboot my droplet").await;
    assert!(asked.calls.is_empty(), "{:#?}", asked.steps);
    assert_eq!(asked.steps.last().unwrap().needs_input, ["droplet_id"]);
    assert!(
        asked
            .answer
            .as_deref()
            .unwrap_or_default()
            .contains("droplet_id"),
        "{:?}",
        asked.answer
    );
    let done = agent.run_trace("it is 3164494").await;
    assert_eq!(
        reboots.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "{:#?}",
        done.steps
    );
    assert_eq!(done.calls[0].call.arguments["droplet_id"], json!(3164494));
}

/// A first candidate that needs an identifier the request does not write gives way to the
/// router's next candidate when that one lacks nothing and only reads.
#[tokio::test]
async fn a_tool_that_lacks_an_identifier_gives_way_to_a_next_candidate_that_reads() {
    let Some(p) = provider() else { return };
    let (reg, _dir) = demo();
    let (get, gets) = counting(
        "get_project",
        "Get one project by its ID",
        json!({"type": "object", "properties": {"project_id": {"type": "string"}},
            "required": ["project_id"]}),
    );
    let (list, lists) = counting(
        "list_projects",
        "List the user's projects",
        json!({"type": "object", "properties": {}}),
    );
    reg.register(get).unwrap();
    reg.register(list).unwrap();
    let mut agent = Agent::new(p, Runtime::new(reg.clone()), AgentConfig::default())
        .with_ranker(Arc::new(Fixed(vec!["get_project", "list_projects"])));
    let trace = agent.run_trace("what projects do I have").await;
    // Not even a rejected attempt at `get_project` first.
    let called: Vec<&str> = trace.calls.iter().map(|c| c.call.name.as_str()).collect();
    assert_eq!(called, ["list_projects"], "{:#?}", trace.steps);
    assert_eq!(
        gets.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "{:#?}",
        trace.steps
    );
    assert_eq!(
        lists.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "{:#?}",
        trace.steps
    );
}

/// Continuation scoring reads the model: a reply it would give scores above one it would not,
/// every score is a log-probability (≤ 0), a longer continuation of the same start scores no
/// higher, and the prompt is scored once for all of them (same results in any order).
#[test]
fn continuation_logprobs_rank_what_the_model_would_say() {
    let Some(p) = provider() else { return };
    let messages = [
        (
            "system".to_string(),
            "Reply with one word: yes or no.".to_string(),
        ),
        (
            "user".to_string(),
            "Is Paris the capital of France?".to_string(),
        ),
    ];
    let lp = p
        .continuation_logprobs(&messages, &["Yes", "zebra", "Yes, Paris", ""])
        .unwrap();
    assert_eq!(lp.len(), 4);
    assert!(lp[0] > lp[1], "{lp:?}");
    assert!(lp.iter().all(|l| *l <= 0.0), "{lp:?}");
    assert!(lp[2] <= lp[0], "{lp:?}");
    assert_eq!(lp[3], 0.0);
    let again = p
        .continuation_logprobs(&messages, &["zebra", "Yes"])
        .unwrap();
    assert!(
        (again[0] - lp[1]).abs() < 1e-3 && (again[1] - lp[0]).abs() < 1e-3,
        "{again:?} {lp:?}"
    );
}
