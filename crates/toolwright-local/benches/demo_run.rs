//! Time for the agent to answer the README's demo queries on the embedded model, end to end: the
//! demo tools, the demo's result sentences, one request per iteration (`Agent::run_trace`), as
//! `toolwright run` does it. This is where the embedded path's speed is measured; the model tests
//! (`tests/local_model.rs`) check the answers and no wall-clock bound.
//!
//! Each query is timed with every pass on (the default) and with `score_values` off, side by
//! side in one run, so the cost of scoring offered values whole is a ratio from one machine state.
//!
//! Needs the fetched model (`toolwright model fetch`, or `TOOLWRIGHT_MODEL`):
//! `cargo bench -p toolwright-local --features llama --bench demo_run`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::Criterion;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use toolwright_agent::{Agent, AgentConfig};
use toolwright_core::Registry;
use toolwright_local::{LocalConfig, LocalProvider};
use toolwright_runtime::Runtime;

/// The README's demo queries (the first is the quickstart's).
const QUERIES: [(&str, &str); 3] = [
    ("convert", "Convert 100 USD to EUR"),
    ("weather", "What's the weather in Tokyo?"),
    ("calculate", "What is 17 times 23?"),
];

/// The embedded provider as the CLI runs it over the demo tools, with `off` passes switched off.
fn provider(off: &[&str]) -> Arc<LocalProvider> {
    let path = toolwright_local::model::find_model().unwrap_or_else(|| {
        panic!(
            "the embedded model is missing: run `{}` (or set TOOLWRIGHT_MODEL=PATH)",
            toolwright_local::model::FETCH_COMMAND
        )
    });
    let mut config = LocalConfig::new(path);
    config.summaries = Some(toolwright_local::Summarizer::new(
        toolwright_demo::summarize,
    ));
    for name in off {
        config.passes.switch_off(name).unwrap();
    }
    Arc::new(LocalProvider::new(config).expect("the model loads"))
}

fn demo(dir: &std::path::Path) -> Arc<Registry> {
    let reg = toolwright_demo::registry(toolwright_demo::DemoConfig {
        root: dir.to_path_buf(),
    })
    .unwrap();
    Arc::new(reg)
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let reg = demo(dir.path());
    let variants = [
        ("default", provider(&[])),
        ("score_values-off", provider(&["score_values"])),
    ];
    let mut g = c.benchmark_group("demo_run");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(20));
    for (name, query) in QUERIES {
        for (variant, p) in &variants {
            let mut agent =
                Agent::new(p.clone(), Runtime::new(reg.clone()), AgentConfig::default());
            g.bench_function(format!("{name}/{variant}"), |b| {
                b.iter(|| {
                    let trace = rt.block_on(agent.run_trace(black_box(query)));
                    assert!(trace.answer.is_some(), "{query:?}: {:?}", trace.stop);
                    trace
                })
            });
        }
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
