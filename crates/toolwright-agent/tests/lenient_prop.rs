//! Property tests of the prompted-JSON reader over mangled model output: never a panic, and the
//! calls survive the mangling a tolerant reader is meant to undo.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use proptest::prelude::*;
use serde_json::{Value, json};
use toolwright_agent::lenient;
use toolwright_agent::providers::prompted::parse_reply;

fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,10}"
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i32>().prop_map(|n| json!(n)),
        (-1000.0f64..1000.0).prop_map(|f| json!((f * 100.0).round() / 100.0)),
        "[A-Za-z0-9 .,:-]{0,20}".prop_map(Value::String),
        any::<bool>().prop_map(Value::Bool),
    ]
}

fn reply() -> impl Strategy<Value = (String, Value, Value)> {
    (word(), prop::collection::btree_map(word(), scalar(), 0..4)).prop_map(|(tool, args)| {
        let args = Value::Object(args.into_iter().collect());
        let v = json!({"requires_tools": true, "direct_response": null, "thought": "t",
                       "plan": ["p"], "tool_calls": [{"tool": tool, "args": args}]});
        (tool, args, v)
    })
}

/// Applies the manglings the reader must undo.
fn mangle(
    v: &Value,
    fence: bool,
    prefix: &str,
    suffix: &str,
    single: bool,
    trailing: bool,
) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap();
    if trailing {
        s = s.replace("\n}", ",\n}").replace("\n]", ",\n]");
    }
    if single && !s.contains('\'') && !s.contains("\\\"") {
        s = s.replace('"', "'");
    }
    if fence {
        s = format!("```json\n{s}\n```");
    }
    format!("{prefix}{s}{suffix}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn recoverable_manglings_keep_the_call(
        (tool, args, v) in reply(),
        fence in any::<bool>(),
        prefix in "[A-Za-z ,!:]{0,30}",
        suffix in "[A-Za-z .!]{0,30}",
        single in any::<bool>(),
        trailing in any::<bool>(),
    ) {
        let text = mangle(&v, fence, &prefix, &suffix, single, trailing);
        let r = parse_reply(&text, 0).unwrap();
        prop_assert_eq!(r.tool_calls.len(), 1);
        prop_assert_eq!(&r.tool_calls[0].name, &tool);
        prop_assert_eq!(&r.tool_calls[0].arguments, &args);
    }

    #[test]
    fn truncated_and_corrupted_output_never_panics(
        (_tool, _args, v) in reply(),
        cut in any::<prop::sample::Index>(),
        noise in prop::collection::vec((any::<prop::sample::Index>(), any::<char>()), 0..6),
    ) {
        let mut chars: Vec<char> = serde_json::to_string(&v).unwrap().chars().collect();
        for (at, c) in noise {
            let i = at.index(chars.len() + 1);
            chars.insert(i, c);
        }
        let n = cut.index(chars.len() + 1);
        let text: String = chars[..n].iter().collect();
        let _ = lenient::parse(&text);
        let _ = parse_reply(&text, 0);
    }

    #[test]
    fn any_text_never_panics(s in ".{0,400}") {
        let _ = lenient::parse(&s);
        let _ = parse_reply(&s, 0);
    }

    #[test]
    fn json_like_soup_never_panics(s in r#"[\[\]{}"',:\\ a-z0-9.\-+eE/\*\n]{0,300}"#) {
        let _ = lenient::parse(&s);
        let _ = parse_reply(&s, 7);
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = format!("{}{}", "{\"a\":".repeat(100_000), "1");
    assert!(lenient::parse(&deep).is_err());
    let deep = "[".repeat(200_000);
    assert!(parse_reply(&deep, 0).is_err());
}
