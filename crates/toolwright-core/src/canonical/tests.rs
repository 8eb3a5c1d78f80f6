use super::*;
use serde_json::json;

#[test]
fn key_order_does_not_change_the_hash() {
    assert_eq!(
        hash(&json!({"a": 1, "b": [1, {"y": 2, "x": 1}]})),
        hash(&json!({"b": [1, {"x": 1, "y": 2}], "a": 1}))
    );
    assert_ne!(hash(&json!({"a": 1})), hash(&json!({"a": 2})));
}

#[test]
fn equal_numbers_in_other_spellings_are_one_form() {
    let a: Value = serde_json::from_str(r#"{"amount":100}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"amount":100.0}"#).unwrap();
    let c: Value = serde_json::from_str(r#"{"amount":1e2}"#).unwrap();
    let d: Value = serde_json::from_str(r#"{"amount":-0.0}"#).unwrap();
    assert_eq!(canonical_string(&a), r#"{"amount":100}"#);
    assert_eq!(canonical_string(&b), r#"{"amount":100}"#);
    assert_eq!(canonical_string(&c), r#"{"amount":100}"#);
    assert_eq!(canonical_string(&d), r#"{"amount":0}"#);
    assert_eq!(hash(&a), hash(&b));
    assert_eq!(short_hash(&a), short_hash(&c));
}

/// RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
#[test]
fn rfc8785_appendix_b_numbers() {
    let table: &[(u64, &str)] = &[
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
    ];
    for (bits, want) in table {
        let x = f64::from_bits(*bits);
        assert_eq!(format_f64(x), *want, "bits {bits:#018x}");
        let v = serde_json::Number::from_f64(x).map(Value::Number).unwrap();
        assert_eq!(canonical_string(&v), *want, "bits {bits:#018x} via Value");
    }
}

#[test]
fn exponent_boundaries_follow_ecmascript() {
    for (x, want) in [
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (123.456, "123.456"),
        (0.1, "0.1"),
        (-2.5e30, "-2.5e+30"),
        (4.5, "4.5"),
        (0.002, "0.002"),
    ] {
        assert_eq!(format_f64(x), want, "{x:e}");
    }
    // Integers held as u64/i64 go through the double too.
    assert_eq!(
        canonical_string(&json!(9007199254740993u64)),
        "9007199254740992"
    );
    assert_eq!(canonical_string(&json!(-42i64)), "-42");
    assert_eq!(canonical_string(&json!(u64::MAX)), "18446744073709552000");
}

/// RFC 8785 §3.2.2 and §3.2.3 examples.
#[test]
fn rfc8785_serialization_and_sorting_examples() {
    let input = r#"{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }"#;
    let v: Value = serde_json::from_str(input).unwrap();
    assert_eq!(
        canonical_string(&v),
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\
         \"string\":\"\u{20ac}$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
    );
    let sorting = r#"{
      "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"
    }"#;
    let v: Value = serde_json::from_str(sorting).unwrap();
    let order: Vec<String> = {
        let text = canonical_string(&v);
        let back: serde_json::Map<String, Value> = serde_json::from_str(&text).unwrap();
        back.values()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        order,
        [
            "Carriage Return",
            "One",
            "Control",
            "Latin Small Letter O With Diaeresis",
            "Euro Sign",
            "Emoji: Grinning Face",
            "Hebrew Letter Dalet With Dagesh"
        ]
    );
}

#[test]
fn control_characters_use_short_or_lowercase_escapes() {
    let v = json!("\u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f}/é");
    assert_eq!(
        canonical_string(&v),
        "\"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f\u{7f}/é\""
    );
}

#[test]
fn output_is_valid_json_that_reads_back_equal() {
    let v = json!({"z": [1.5, "a\"b", {"k": null}], "a": {"b": true}});
    let back: Value = serde_json::from_str(&canonical_string(&v)).unwrap();
    assert_eq!(back, v);
}

proptest::proptest! {
    /// Every finite double prints as text that reads back as the same double.
    #[test]
    fn numbers_round_trip(bits in proptest::prelude::any::<u64>()) {
        let x = f64::from_bits(bits);
        proptest::prop_assume!(x.is_finite());
        let text = format_f64(x);
        let back: f64 = text.parse().unwrap();
        proptest::prop_assert!(back == x, "{x:e} printed as {text}");
    }
}
