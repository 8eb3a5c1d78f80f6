#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps, for every in-scope request of the MCP sets named on the command line, the optional
//! `enum` parameters of the expected tool that schema narrowing leaves out (the request names
//! neither the parameter nor one of its values as written) and the required ones it does not
//! restrict, with how close each allowed value is to the request in the local embedder's space. For offline experiments on whether the
//! embedder can tell that "behind on payment" means `past_due`.
//!
//! ```text
//! cargo run --release -p toolwright-eval --features embed --example enum_words -- OUT SET_DIR...
//! ```
//!
//! One JSON line per left-out parameter: `{"set","id","tool","param","required","expected","values":
//! [[value, whole, window, named]..]}`, where `expected` is the expected call's acceptable values for
//! the parameter (null when it does not say), `whole` the cosine between the request and the
//! value written as words, and `window` the best cosine between the value and a run of one to
//! four of the request's words, `named` the cosine between the request and the parameter's name
//! followed by the value ("mode bicycling").

mod common;

#[cfg(feature = "embed")]
fn main() -> Result<(), String> {
    use serde_json::{Value, json};
    use std::io::Write;
    use toolwright_catalog::Embedder;
    use toolwright_local::narrow::narrow_for_query;

    let (mut out, sets) = common::out_and_sets("enum_words")?;
    let dir = toolwright_local::embed::find().ok_or("no embedder: toolwright model fetch")?;
    let emb = toolwright_local::embed::LocalEmbedder::load(&dir).map_err(|e| e.to_string())?;
    let cos = |a: &[f32], b: &[f32]| -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
        dot / (n(a) * n(b))
    };
    // `past_due` → "past due", `inProgress` → "in progress".
    let words = |v: &str| -> String {
        let mut s = String::new();
        let mut prev_lower = false;
        for c in v.chars() {
            if c == '_' || c == '-' || c == '.' || c == '/' {
                s.push(' ');
            } else if c.is_uppercase() && prev_lower {
                s.push(' ');
                s.extend(c.to_lowercase());
            } else {
                s.extend(c.to_lowercase());
            }
            prev_lower = c.is_lowercase();
        }
        s
    };

    for dir in &sets {
        let (set, ds) = common::load_set(dir)?;
        for r in ds.requests.iter().filter(|r| !r.out_of_scope()) {
            let exp = &r.expected[0];
            let Some(spec) = ds.specs.iter().find(|s| s.name == exp.name) else {
                continue;
            };
            let (_, report) = narrow_for_query(spec, &r.query);
            let props = toolwright_catalog::schema::properties(&spec.parameters)
                .cloned()
                .unwrap_or_default();
            let qwords: Vec<String> = r
                .query
                .split_whitespace()
                .map(|w| {
                    w.trim_matches(|c: char| !c.is_alphanumeric())
                        .to_lowercase()
                })
                .filter(|w| !w.is_empty())
                .collect();
            let mut windows: Vec<String> = Vec::new();
            for n in 1..=4 {
                for w in qwords.windows(n) {
                    windows.push(w.join(" "));
                }
            }
            let mut wv: Option<Vec<Vec<f32>>> = None;
            let qv = emb.embed(&[r.query.as_str()]).map_err(|e| e.to_string())?;
            let required = toolwright_catalog::schema::required(&spec.parameters);
            let restricted: Vec<&String> = report.restricted.iter().map(|(n, _)| n).collect();
            let open_required = required.iter().filter(|n| !restricted.contains(n));
            for name in report.dropped.iter().chain(open_required) {
                let Some(values) = props
                    .get(name)
                    .and_then(|p| p.get("enum"))
                    .and_then(Value::as_array)
                else {
                    continue;
                };
                let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
                if values.len() < 2 {
                    continue;
                }
                let wv = wv.get_or_insert_with(|| {
                    let refs: Vec<&str> = windows.iter().map(String::as_str).collect();
                    refs.chunks(32)
                        .flat_map(|c| emb.embed(c).unwrap())
                        .collect()
                });
                let texts: Vec<String> = values.iter().map(|v| words(v)).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let vv = emb.embed(&refs).map_err(|e| e.to_string())?;
                let named: Vec<String> = values
                    .iter()
                    .map(|v| format!("{} {}", words(name), words(v)))
                    .collect();
                let refs: Vec<&str> = named.iter().map(String::as_str).collect();
                let nv = emb.embed(&refs).map_err(|e| e.to_string())?;
                let scored: Vec<Value> = values
                    .iter()
                    .zip(vv.iter().zip(&nv))
                    .map(|(v, (e, n))| {
                        let whole = cos(&qv[0], e);
                        let window = wv.iter().map(|w| cos(w, e)).fold(-1.0f32, f32::max);
                        let named = cos(&qv[0], n);
                        json!([v, whole, window, named])
                    })
                    .collect();
                let line = json!({"set": set, "id": r.id, "tool": spec.name, "param": name,
                    "required": required.contains(name),
                    "expected": exp.arguments.get(name), "values": scored});
                writeln!(out, "{line}").map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn main() {
    println!("enum_words: build with --features embed");
}
