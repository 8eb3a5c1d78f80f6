#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps, for every request of the MCP sets named on the command line, a function name the
//! embedded model writes for the request (no tools shown) and the hybrid router's first
//! candidates for the request alone and for the request with that name's words appended. For
//! offline experiments on query expansion by a hypothetical tool name.
//!
//! ```text
//! cargo run --release -p toolwright-eval --features embed,local --example hyde -- OUT SET_DIR...
//! ```
//!
//! One JSON line per request: `{"set","id","expected":[..],"name","plain":[[tool, score,
//! similarity]..],"expanded":[..]}` (first 5 each; `expected` empty when out of scope).

#[cfg(all(feature = "embed", feature = "local"))]
mod common;

/// Examples shown to the model before the request (everyday tasks, none from a dataset).
#[cfg(all(feature = "embed", feature = "local"))]
const SHOTS: [(&str, &str); 4] = [
    (
        "what's the weather like in Lisbon tomorrow?",
        "get_weather_forecast",
    ),
    (
        "send a note to Priya saying the build is green",
        "send_message",
    ),
    ("remove the draft post called 'hello world'", "delete_post"),
    (
        "how many open orders does customer 881 have",
        "list_customer_orders",
    ),
];

#[cfg(all(feature = "embed", feature = "local"))]
fn main() -> Result<(), String> {
    use serde_json::{Value, json};
    use std::io::Write;
    use toolwright_agent::Ranker;
    use toolwright_local::{LocalConfig, LocalProvider};

    let (mut out, sets) = common::out_and_sets("hyde")?;
    let path =
        toolwright_local::model::find_model().ok_or("no model: run `toolwright model fetch`")?;
    let model = LocalProvider::new(LocalConfig::new(path)).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let system = "You name software functions. Reply with one function name in snake_case, \
        such as get_user_profile or send_message, and nothing else.";
    let top = |cands: Vec<toolwright_agent::Candidate>| -> Value {
        cands
            .iter()
            .map(|c| json!([c.name, c.score, c.similarity]))
            .collect()
    };
    for dir in &sets {
        let (set, ds) = common::load_set(dir)?;
        let ranker = common::hybrid_ranker(&ds)?;
        for r in &ds.requests {
            let mut messages = vec![("system".to_string(), system.to_string())];
            for (q, a) in SHOTS.iter().chain(&[(r.query.as_str(), "")]) {
                messages.push((
                    "user".to_string(),
                    format!("Which function would do this: {q}"),
                ));
                if !a.is_empty() {
                    messages.push(("assistant".to_string(), (*a).to_string()));
                }
            }
            let (text, _) = rt
                .block_on(model.chat(messages, 12))
                .map_err(|e| e.to_string())?;
            let name: String = text
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
                .to_string();
            let words = name.replace(['_', '-', '.'], " ");
            let expanded = format!("{} ({words})", r.query);
            let line = json!({"set": set, "id": r.id, "expected": r.right_tools(), "name": name,
                "plain": top(ranker.rank(&r.query, 5)), "expanded": top(ranker.rank(&expanded, 5))});
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(not(all(feature = "embed", feature = "local")))]
fn main() {
    println!("hyde: build with --features embed,local");
}
