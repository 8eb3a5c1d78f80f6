//! Any JSON as a parameter schema, name or description: every function answers without
//! panicking, and the YAML catalog gives back exactly what it was given.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolwright_catalog::catalog::{self, Catalog};
use toolwright_catalog::dialect::{Dialect, export_with_report};
use toolwright_catalog::lint::{LintOptions, lint};
use toolwright_catalog::router::Router;
use toolwright_core::ToolSpec;

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("type".to_string()),
        Just("properties".to_string()),
        Just("required".to_string()),
        Just("$ref".to_string()),
        Just("$defs".to_string()),
        Just("enum".to_string()),
        Just("items".to_string()),
        Just("anyOf".to_string()),
        Just("allOf".to_string()),
        Just("additionalProperties".to_string()),
        Just("description".to_string()),
        Just("minimum".to_string()),
        Just("format".to_string()),
        "[a-z$#/~ ]{0,6}",
        any::<String>(),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop_oneof![
            Just("object".to_string()),
            Just("string".to_string()),
            Just("#/$defs/A".to_string()),
            Just("#".to_string()),
            Just("yes".to_string()),
            Just("~".to_string()),
            Just("- x".to_string()),
            Just("1e5".to_string()),
            Just(" lead".to_string()),
            Just("a: b # c".to_string()),
            any::<String>(),
        ]
        .prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn spec(name: String, description: String, parameters: Value) -> ToolSpec {
    ToolSpec::new(name, description, parameters)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn nothing_panics(name in "[a-zA-Z0-9_.-]{1,20}", description in any::<String>(), p in json_value(), q in json_value(), query in any::<String>()) {
        let a = spec(name.clone(), description.clone(), p.clone());
        let b = spec(name, description, q);
        for d in Dialect::ALL {
            let _ = export_with_report(&a, d);
        }
        let _ = lint(&[a.clone(), b.clone()], &LintOptions::default());
        let _ = catalog::diff(&Catalog::from_specs(std::slice::from_ref(&a), "x"), &Catalog::from_specs(std::slice::from_ref(&b), "x"));
        let _ = Router::new(&[a, b]).rank(&query, 3);
        let _ = catalog::parse(&query, None);
    }

    #[test]
    fn catalog_yaml_round_trips(name in "[a-zA-Z0-9_.-]{1,20}", description in any::<String>(), props in prop::collection::vec(("[a-z_]{1,8}", json_value()), 0..4), example in json_value()) {
        let mut properties = Map::new();
        for (k, v) in props {
            properties.insert(k, v);
        }
        let mut s = spec(name, description, json!({"type": "object", "properties": properties}));
        s.meta.examples = vec![example];
        s.meta.version = Some("1.0".into());
        let yaml = catalog::export(std::slice::from_ref(&s), "agent").unwrap();
        let back = catalog::parse(&yaml, None).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        prop_assert_eq!(back, Catalog::from_specs(&[s], "agent"));
    }
}
