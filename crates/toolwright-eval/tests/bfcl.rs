//! Every dialect, the linter and the router on external definitions: a small hand-made fixture in
//! BFCL's format (always), and the BFCL corpus when `TOOLWRIGHT_BFCL_DIR` points at it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::bfcl;
use serde_json::Value;
use toolwright_catalog::dialect::{Dialect, export_with_report};
use toolwright_catalog::lint::{LintOptions, lint};
use toolwright_catalog::router::Router;
use toolwright_core::{ArgValidator, ToolSpec};

const FIXTURE: &str = include_str!("fixtures/bfcl_sample.jsonl");

fn fixture_cases() -> Vec<bfcl::Case> {
    bfcl::parse_cases(FIXTURE, None)
}

fn fixture_functions() -> Vec<ToolSpec> {
    let mut out: Vec<ToolSpec> = Vec::new();
    for c in fixture_cases() {
        for f in c.functions {
            if !out.iter().any(|o| o.name == f.name) {
                out.push(f);
            }
        }
    }
    out
}

fn portable_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Visits every schema object under `v` (properties, items, anyOf, $defs...).
fn each_schema<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    if let Value::Object(m) = v {
        out.push(v);
        for (k, x) in m {
            match k.as_str() {
                "properties" | "$defs" | "definitions" => {
                    if let Value::Object(p) = x {
                        p.values().for_each(|s| each_schema(s, out));
                    }
                }
                "items" | "additionalProperties" | "not" => each_schema(x, out),
                "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                    if let Value::Array(a) = x {
                        a.iter().for_each(|s| each_schema(s, out));
                    }
                }
                _ => {}
            }
        }
    }
}

fn is_object(s: &Value) -> bool {
    s.get("type").and_then(Value::as_str) == Some("object")
        || s.get("type")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|t| t == "object"))
}

/// Checks what each provider requires of the exported definition of `spec`; returns problems.
fn check_exports(spec: &ToolSpec) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail =
        |d: Dialect, msg: String| problems.push(format!("{} [{}]: {msg}", spec.name, d.as_str()));
    for d in Dialect::ALL {
        let (v, _lowered) = export_with_report(spec, d);
        let schema = match d {
            Dialect::JsonSchema => v.clone(),
            Dialect::OpenAi | Dialect::OpenAiStrict => v["function"]["parameters"].clone(),
            Dialect::Anthropic => v["input_schema"].clone(),
            Dialect::Gemini => v.get("parameters").cloned().unwrap_or(Value::Null),
            Dialect::Mcp => v["inputSchema"].clone(),
        };
        let name = match d {
            Dialect::OpenAi | Dialect::OpenAiStrict => v["function"]["name"].as_str(),
            Dialect::JsonSchema => v["title"].as_str(),
            _ => v["name"].as_str(),
        }
        .unwrap_or_default()
        .to_string();
        if matches!(
            d,
            Dialect::OpenAi | Dialect::OpenAiStrict | Dialect::Anthropic
        ) && !portable_name(&name)
        {
            fail(d, format!("name `{name}` not accepted"));
        }
        if d != Dialect::Gemini || !schema.is_null() {
            if !is_object(&schema) {
                fail(d, "parameters are not an object schema".into());
            }
            if d != Dialect::Gemini
                && let Err(e) = ArgValidator::new(&schema)
            {
                fail(d, format!("schema does not compile: {e}"));
            }
        }
        let mut all = Vec::new();
        each_schema(&schema, &mut all);
        match d {
            Dialect::JsonSchema => {
                if v["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
                    fail(d, "no $schema".into());
                }
            }
            Dialect::Gemini => {
                let text = schema.to_string();
                for banned in [
                    "\"$ref\"",
                    "\"$defs\"",
                    "\"additionalProperties\"",
                    "\"$schema\"",
                    "\"oneOf\"",
                    "\"allOf\"",
                    "\"const\"",
                ] {
                    if text.contains(banned) {
                        fail(d, format!("contains {banned}"));
                    }
                }
                for s in &all {
                    if s.get("type").is_none() && s.get("anyOf").is_none() {
                        fail(d, format!("schema without a type: {s}"));
                    }
                    if s.get("type").is_some_and(|t| !t.is_string()) {
                        fail(d, format!("type is not a single string: {}", s["type"]));
                    }
                    if let Some(Value::Array(e)) = s.get("enum")
                        && !e.iter().all(Value::is_string)
                    {
                        fail(d, "non-string enum".into());
                    }
                }
            }
            Dialect::OpenAiStrict => {
                for s in &all {
                    if !["type", "anyOf", "$ref", "enum", "const"]
                        .iter()
                        .any(|k| s.get(*k).is_some())
                    {
                        fail(d, format!("schema without a type: {s}"));
                    }
                    if is_object(s) {
                        if s.get("additionalProperties") != Some(&Value::Bool(false)) {
                            fail(d, format!("object without additionalProperties:false: {s}"));
                        }
                        let keys: Vec<&String> = s
                            .get("properties")
                            .and_then(Value::as_object)
                            .map(|p| p.keys().collect())
                            .unwrap_or_default();
                        let req: Vec<&str> = s
                            .get("required")
                            .and_then(Value::as_array)
                            .map(|a| a.iter().filter_map(Value::as_str).collect())
                            .unwrap_or_default();
                        if keys.len() != req.len()
                            || !keys.iter().all(|k| req.contains(&k.as_str()))
                        {
                            fail(
                                d,
                                format!("not every property required: {keys:?} vs {req:?}"),
                            );
                        }
                    }
                    for k in [
                        "minLength",
                        "maxLength",
                        "uniqueItems",
                        "patternProperties",
                        "default",
                        "oneOf",
                        "allOf",
                    ] {
                        if s.get(k).is_some() {
                            fail(d, format!("strict mode rejects {k}"));
                        }
                    }
                }
            }
            Dialect::Mcp => {
                if v["annotations"]["readOnlyHint"].as_bool().is_none() {
                    fail(d, "no annotations".into());
                }
            }
            Dialect::OpenAi | Dialect::Anthropic => {}
        }
    }
    problems
}

#[test]
fn fixture_definitions_export_to_every_dialect() {
    let specs = fixture_functions();
    assert!(specs.len() >= 20);
    let problems: Vec<String> = specs.iter().flat_map(check_exports).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    // The fixture's quirks get lowered and reported.
    let flight = specs
        .iter()
        .find(|s| s.name == "travel.book_flight")
        .unwrap();
    let (_, lowered) = export_with_report(flight, Dialect::OpenAi);
    assert!(lowered.iter().any(|l| l.pointer == "#name"));
}

#[test]
fn dialect_snapshots_of_a_bfcl_style_definition() {
    // Dotted name, BFCL types (dict, float), an array of nested objects, an `any` parameter.
    let specs = fixture_functions();
    for name in ["travel.book_flight", "events.concert_tickets"] {
        let spec = specs.iter().find(|s| s.name == name).unwrap();
        let all: serde_json::Map<String, Value> = Dialect::ALL
            .iter()
            .map(|d| {
                let (v, lowered) = export_with_report(spec, *d);
                (
                    d.as_str().to_string(),
                    serde_json::json!({"export": v, "lowered": lowered}),
                )
            })
            .collect();
        insta::assert_json_snapshot!(name.replace('.', "_"), all);
    }
}

#[test]
fn fixture_routes_each_question_to_its_function() {
    let cases = fixture_cases();
    assert_eq!(cases.len(), 14);
    let [r1, _, r5] = bfcl::recall(&cases, |c| {
        Router::new(&c.functions)
            .rank(&c.query, 5)
            .into_iter()
            .map(|r| r.name)
            .collect()
    });
    // Two questions share no word with their function ("What can I cook?" → recipes by
    // ingredients; "How do you say … in German?" → translate): lexical routing cannot find
    // them, which is what the `Scorer` trait leaves room for (embeddings).
    assert!(
        r1 >= 0.85 && r5 >= 0.85,
        "recall@1 {r1}, @5 {r5} on the fixture"
    );
    let missed: Vec<&str> = cases
        .iter()
        .filter(|c| {
            Router::new(&c.functions)
                .rank(&c.query, 1)
                .first()
                .is_none_or(|r| !c.expected.contains(&r.name))
        })
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(missed, ["fixture_5", "fixture_12"]);
    // Pooled: every question against every fixture function.
    let pool = fixture_functions();
    let router = Router::new(&pool);
    let [p1, _, p5] = bfcl::recall(&cases, |c| {
        router
            .rank(&c.query, 5)
            .into_iter()
            .map(|r| r.name)
            .collect()
    });
    assert!(p1 >= 0.75 && p5 >= 0.85, "pooled recall@1 {p1}, @5 {p5}");
}

#[test]
fn fixture_lint_finds_what_is_there() {
    let specs = fixture_functions();
    let options = LintOptions {
        declared_side_effects: false,
        ..LintOptions::default()
    };
    let findings = lint(&specs, &options);
    // "diet: one of: vegan, vegetarian, none" is a closed set written as a free string.
    assert!(
        findings.iter().any(
            |f| f.rule == "TW007" && f.tool.as_deref() == Some("recipes.search_by_ingredients")
        )
    );
    // BFCL descriptions never say when to use the tool.
    assert!(findings.iter().filter(|f| f.rule == "TW003").count() >= 20);
    assert!(findings.iter().any(|f| f.rule == "TW010"));
    assert!(
        findings
            .iter()
            .any(|f| f.rule == "TW008" && f.pointer.as_deref() == Some("/properties/radius"))
    );
}

#[test]
fn bfcl_corpus_exports_lints_and_routes() {
    let Some(dir) = bfcl::data_dir("bfcl_corpus_exports_lints_and_routes") else {
        return;
    };
    let pool = bfcl::all_functions(&dir);
    assert!(
        pool.len() > 1000,
        "only {} functions found under {}",
        pool.len(),
        dir.display()
    );
    let problems: Vec<String> = pool.iter().flat_map(check_exports).collect();
    assert!(
        problems.is_empty(),
        "{} problems, first: {:#?}",
        problems.len(),
        problems.iter().take(20).collect::<Vec<_>>()
    );
    let options = LintOptions {
        declared_side_effects: false,
        ..LintOptions::default()
    };
    let findings = lint(&pool, &options);
    assert!(!findings.is_empty());
    let multiple = bfcl::load_category(&dir, "multiple");
    assert_eq!(multiple.len(), 200);
    let [_, _, r5] = bfcl::recall(&multiple, |c| {
        Router::new(&c.functions)
            .rank(&c.query, 5)
            .into_iter()
            .map(|r| r.name)
            .collect()
    });
    assert!(r5 >= 0.95, "recall@5 on BFCL multiple: {r5}");
    let simple = bfcl::load_category(&dir, "simple_python");
    assert_eq!(simple.len(), 400);
    eprintln!(
        "BFCL: {} distinct functions checked in {} dialects, {} lint findings",
        pool.len(),
        Dialect::ALL.len(),
        findings.len()
    );
}
