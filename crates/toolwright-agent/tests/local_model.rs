//! Embedded-model tests: they need the GGUF (`toolwright model fetch`, or `$TOOLWRIGHT_MODEL`).
//! Without it they fail with the fetch command, unless `TOOLWRIGHT_SKIP_MODEL=1`.
#![cfg(feature = "local")]

use serde_json::json;
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use toolwright_agent::providers::local::{LocalConfig, LocalProvider};
use toolwright_agent::{Agent, AgentConfig, StopReason, Trace};
use toolwright_runtime::Runtime;

fn provider() -> Option<Arc<LocalProvider>> {
    static P: OnceLock<Option<Arc<LocalProvider>>> = OnceLock::new();
    P.get_or_init(|| {
        let Some(path) = toolwright_agent::model::find_model() else {
            if std::env::var("TOOLWRIGHT_SKIP_MODEL").as_deref() == Ok("1") {
                eprintln!("skipping: no model and TOOLWRIGHT_SKIP_MODEL=1");
                return None;
            }
            panic!(
                "the embedded model is missing: run `{}` (or set TOOLWRIGHT_MODEL=PATH, or TOOLWRIGHT_SKIP_MODEL=1 to skip)",
                toolwright_agent::model::FETCH_COMMAND
            );
        };
        Some(Arc::new(LocalProvider::new(LocalConfig::new(path)).expect("the model loads")))
    })
    .clone()
}

async fn run(query: &str) -> Option<Trace> {
    let p = provider()?;
    let dir = tempfile::tempdir().unwrap();
    let reg = toolwright_demo::registry(toolwright_demo::DemoConfig { root: dir.path().to_path_buf() }).unwrap();
    let reg = Arc::new(reg);
    let runtime = Runtime::new(reg.clone());
    let mut agent = Agent::new(p, runtime, AgentConfig::default());
    let t0 = Instant::now();
    let trace = agent.run(query).await;
    eprintln!("{query:?}: {:.2} s\n{}", t0.elapsed().as_secs_f64(), serde_json::to_string_pretty(&json!({
        "answer": trace.answer, "stop": trace.stop, "routed": trace.routed,
        "calls": trace.calls.iter().map(|c| json!({"call": c.call, "status": c.envelope.status})).collect::<Vec<_>>(),
        "notes": trace.steps.iter().flat_map(|s| s.notes.clone()).collect::<Vec<_>>(),
        "usage": trace.usage, "model_ms": trace.model_ms,
    })).unwrap());
    // Every generated call validates against its tool's schema.
    for c in &trace.calls {
        let entry = reg.get(&c.call.name).unwrap_or_else(|| panic!("unknown tool {}", c.call.name));
        entry.prepare(c.call.arguments.clone(), false).unwrap_or_else(|e| panic!("{} does not validate: {e:?}", c.call.arguments));
    }
    Some(trace)
}

#[tokio::test]
async fn explore() {
    let env = std::env::var("EXPLORE").unwrap_or_default();
    let custom: Vec<&str> = env.split('|').filter(|s| !s.is_empty()).collect();
    let default = [
        "Convert 100 USD to EUR",
        "What's the weather in Paris?",
        "What is 17 times 23?",
        "How are you doing?",
        "Convert 250 GBP to JPY",
        "Is it raining in Tokyo?",
        "What is 12 plus 30?",
        "Who are the admins in engineering?",
    ];
    let list: Vec<&str> = if custom.is_empty() { default.to_vec() } else { custom };
    for q in list {
        let Some(t) = run(q).await else { return };
        let _ = t.stop == StopReason::Answered;
    }
}
