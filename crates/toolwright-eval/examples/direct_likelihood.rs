#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps, for every request of a shared-toolset dataset, the embedded model's likelihood of a
//! direct answer against a call of one of the router's first 3 candidates, under two prompts:
//! `listed` (the candidates and their descriptions' first sentences are listed, the model is
//! asked for a name or `none`) and `kind` (no tools shown, the model is asked whether the
//! request needs an app or tool, or a text answer). For offline analysis of "no tool fits"
//! evidence, beside `no_tool_features`.
//!
//! `cargo run --release -p toolwright-eval --features embed,local --example direct_likelihood DIR > out.jsonl`

#[cfg(all(feature = "embed", feature = "local"))]
mod common;

#[cfg(all(feature = "embed", feature = "local"))]
fn main() -> Result<(), String> {
    use serde_json::json;
    use toolwright_agent::Ranker;
    use toolwright_local::{LocalConfig, LocalProvider};

    let ds = common::load_dataset()?;
    let ranker = common::hybrid_ranker(&ds)?;
    let specs = ranker.router().specs();
    let path =
        toolwright_local::model::find_model().ok_or("no model: run `toolwright model fetch`")?;
    let model = LocalProvider::new(LocalConfig::new(path)).map_err(|e| e.to_string())?;
    let first_sentence = |d: &str| -> String {
        let d = d.trim();
        let end = d.find(". ").map_or(d.len(), |i| i + 1);
        d[..end].chars().take(160).collect()
    };
    let pair = |r: &str, c: String| (r.to_string(), c);
    for r in &ds.requests {
        let t0 = std::time::Instant::now();
        let ranked = ranker.rank(&r.query, 3);
        let names: Vec<&str> = ranked.iter().map(|c| c.name.as_str()).collect();
        let listing: String = ranked
            .iter()
            .filter_map(|c| specs.iter().find(|s| s.name == c.name))
            .map(|s| format!("- {}: {}\n", s.name, first_sentence(&s.description)))
            .collect();
        let listed = [
            pair(
                "system",
                format!(
                    "You can use these tools:\n{listing}Reply with the name of the tool that does what the user asks. If none of them does it, reply: none"
                ),
            ),
            pair("user", r.query.clone()),
        ];
        let mut conts: Vec<&str> = names.clone();
        conts.push("none");
        let lp_listed = model
            .continuation_logprobs(&listed, &conts)
            .map_err(|e| e.to_string())?;
        let kind = [
            pair("system", "Does the user's request need an app or online service to act or look something up (reply: tool), or can it be answered in text alone (reply: text)?".to_string()),
            pair("user", r.query.clone()),
        ];
        let lp_kind = model
            .continuation_logprobs(&kind, &["tool", "text"])
            .map_err(|e| e.to_string())?;
        println!(
            "{}",
            json!({"id": r.id, "oos": r.out_of_scope(), "query": r.query, "names": names,
                   "listed": lp_listed, "kind": lp_kind, "ms": t0.elapsed().as_millis()})
        );
    }
    Ok(())
}

#[cfg(not(all(feature = "embed", feature = "local")))]
fn main() {
    eprintln!("needs --features embed,local");
}
