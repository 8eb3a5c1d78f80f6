//! The argument passes of the small-model path (`toolwright_local::narrow` and
//! `toolwright_local::spans` with its topics, built without llama.cpp): a generated tool schema,
//! a tool description and a request through `narrow_for_query`, `ground_numbers`,
//! `ground_strings` (with and without role cues) and `require_given`, and the same schema
//! through `wrapper::unwrap` (a lifted wrapper object is an object schema too).
//!
//! Checks: no panic or hang on any request text (times, dates, URLs, quotes, brackets and
//! identifiers are mixed in so the cues fire); each pass keeps the schema an object whose
//! `required` names only its own properties, and adds no property the tool does not have.
#![no_main]

#[path = "../common/mod.rs"]
mod common;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwright_core::ToolSpec;
use toolwright_local::narrow::{ground_numbers, narrow_for_query, require_given};
use toolwright_local::spans::ground_strings;

/// Words the cues react to, so that generated requests reach them.
const WORDS: &[&str] = &[
    "the", "in", "to", "from", "called", "named", "at", "9:30", "am", "7pm", "noon", "2024-03-01",
    "https://example.com/2025/05/x.html", "/srv/app", "'quoted text'", "\"x\"", "(ref", "e42)",
    "input[name=email]", "recD77", "tblQ3Goals", "acme/webapp", "#318", "50%", "$15", "1,000",
    "-3", "1e-9", "1280x720", "one", "of", "or", "default", "newest", "first", "jordan@x.io",
    "'s", "between", "and", "a", "é", "東京", "", "(48*12)", "+", "365/7", "times", "**-360)",
    "3.5e6", "ref://a7f3", "cus_N4k2", "group", "context", "label", "Treaty", "Eiffel", "Tower",
    "(programming", "language)", "Summarise", "I", "wiki", "title", "1a2b3c", "9TZKQ4WX1R",
    "e.g.,", "AAPL", "orange", "Navy", "commit", "message", "French", "german", "Japan", "US",
    "Côte", "d'Ivoire", "Papua", "branch", "tag", "off", "against", "based", "develop", "v1.4.0",
    "release-1.2", "PROJ-123", "call", "export", "institutions", "gainers", "10", "seconds",
    "2km", "500ms", "25%", "1280x720", "by", "euros", "$10", "€5", "C$20", "6", "months",
    "hourly", "labeled", "SELECT", "select", "count(*)", "*", "FROM", "from", "WHERE", "=", "on",
    "'shipped'", ";", "async", "(page)", "=>", "{", "}", "await", "page.goto('/a');", ".then(x)",
    "(:City", "MATCH", "(p:Person)",
];

/// Words the topic rules react to (`toolwright_local::topic`).
const TOPIC_WORDS: &[&str] = &[
    "about", "for", "search", "what", "-", "—", "ask:", "please", "look", "up", "tell", "me",
    "when", "anywhere", "X9Y8Z7", "select!", "why?", "titled", "related", "to", "do", "with",
];

fn request(u: &mut Unstructured) -> Result<String> {
    let n = u.int_in_range(0..=24)?;
    let mut out = Vec::new();
    for _ in 0..n {
        if u.ratio(1, 4)? {
            out.push((*u.choose(TOPIC_WORDS)?).to_string());
        } else if u.ratio(2, 3)? {
            out.push((*u.choose(WORDS)?).to_string());
        } else {
            out.push(common::key(u)?);
        }
    }
    Ok(out.join(if u.arbitrary()? { " " } else { ", " }))
}

fn description(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=6)? {
        0 => "A tool.".to_string(),
        1 => "Args:\n    name: One of 'text', 'main' or 'markdown'.\n    when: HH:MM".to_string(),
        2 => "Sort by 'relevance' (default) or 'date' (newest first). Uses 'curl'.".to_string(),
        3 => "Args:\n    token: A ref://<id> token.\n    expression: A math expression".to_string(),
        4 => "Get a summary of a Wikipedia article. Ticker (e.g., AAPL, MSFT)".to_string(),
        5 => "Args:\n    mode: Which\n      - fast: skips the cache\n      - slow: reads pages\n    \
              language: ISO 639-1 code (e.g. 'en')"
            .to_string(),
        _ => common::string(u)?,
    })
}

/// Whether `schema` is an object whose `required` names only its properties and whose
/// properties are among `allowed` (when given).
fn well_formed(schema: &Value, allowed: Option<&serde_json::Map<String, Value>>) -> bool {
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let known = |k: &str| props.is_some_and(|p| p.contains_key(k));
    let required_ok = required.is_none_or(|r| r.iter().all(|k| k.as_str().is_some_and(known)));
    let subset = match (props, allowed) {
        (Some(p), Some(a)) => p.keys().all(|k| a.contains_key(k)),
        _ => true,
    };
    schema.is_object() && required_ok && subset
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(schema) = common::root_schema(&mut u) else {
        return;
    };
    let (Ok(desc), Ok(query), Ok(cues)) = (description(&mut u), request(&mut u), u.arbitrary())
    else {
        return;
    };
    let spec = ToolSpec::new("tool_name", desc, schema);
    if let Some((lifted, w)) = toolwright_local::wrapper::unwrap(&spec) {
        assert!(lifted.parameters.get("properties").is_some_and(Value::is_object));
        let _ = w.wrap(Value::Object(Default::default()));
        let _ = w.flatten(&w.wrap(Value::Object(Default::default())));
    }
    let (narrowed, _) = narrow_for_query(&spec, &query);
    if !well_formed(&spec.parameters, None) {
        // `true`/`false` schemas, and a `required` naming what is not a property: no panic is
        // all that is asked; a schema without properties passes through unchanged.
        if spec.parameters.get("properties").is_none() {
            assert_eq!(narrowed.parameters, spec.parameters);
        }
        let (n, _) = ground_numbers(&narrowed, &query);
        let (g, _) = ground_strings(&n, &query, cues);
        let _ = require_given(&g);
        return;
    }
    let original = spec.parameters.get("properties").and_then(Value::as_object);
    // Narrowing inlines `$ref`s, so only its own output is compared with later passes.
    assert!(well_formed(&narrowed.parameters, None), "narrowing: {}", narrowed.parameters);
    if let Some(o) = original
        && spec.parameters.get("$defs").is_none()
        && spec.parameters.get("definitions").is_none()
    {
        assert!(well_formed(&narrowed.parameters, Some(o)), "narrowing added a property");
    }
    let kept = narrowed.parameters.get("properties").and_then(Value::as_object).cloned();
    let (numbers, _) = ground_numbers(&narrowed, &query);
    assert!(well_formed(&numbers.parameters, kept.as_ref()), "numbers: {}", numbers.parameters);
    let (strings, _) = ground_strings(&numbers, &query, cues);
    assert!(well_formed(&strings.parameters, kept.as_ref()), "strings: {}", strings.parameters);
    let (given, _) = require_given(&strings);
    assert!(well_formed(&given.parameters, kept.as_ref()), "given: {}", given.parameters);
});
