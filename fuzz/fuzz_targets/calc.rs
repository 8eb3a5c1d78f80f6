//! The calculator (`toolwright_demo::calc`): the expression parser on any UTF-8 text, and the
//! `calculate` tool function around it.
//!
//! Checks: no panic (no integer overflow with debug assertions on, no stack overflow past the
//! nesting bound); an accepted expression gives a finite number; wrapping an accepted
//! expression in parentheses or negating it gives the same (negated) number, unless that
//! crosses the nesting bound; the tool's answer is an envelope that serializes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwright_demo::calc::{CalcError, calculate, evaluate};

fuzz_target!(|data: &[u8]| {
    let Ok(expr) = std::str::from_utf8(data) else {
        return;
    };
    let result = evaluate(expr);
    if let Ok(v) = result {
        assert!(v.is_finite(), "{expr:?} gave {v}");
        match evaluate(&format!("({expr})")) {
            Ok(w) => assert_eq!(v.to_bits(), w.to_bits(), "({expr:?}) differs"),
            Err(e) => assert_eq!(e, CalcError::TooDeep, "({expr:?}): {e:?}"),
        }
        match evaluate(&format!("0-({expr})")) {
            Ok(w) => assert_eq!((0.0 - v).to_bits(), w.to_bits(), "0-({expr:?}) differs"),
            Err(e) => assert_eq!(e, CalcError::TooDeep, "0-({expr:?}): {e:?}"),
        }
    }
    match calculate(expr.to_string()) {
        Ok(outcome) => {
            serde_json::to_string(&outcome).expect("the envelope serializes");
        }
        Err(e) => {
            serde_json::to_string(&e).expect("the error serializes");
        }
    }
});
