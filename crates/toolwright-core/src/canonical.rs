//! RFC 8785 (JSON Canonicalization Scheme) serialization, and hashes of it, for idempotency keys
//! and approval ids.
//!
//! Invariants of [`canonical_string`], per RFC 8785 §3.2:
//! - object members are sorted by their keys' UTF-16 code units (§3.2.3), recursively;
//! - every number is treated as an IEEE 754 double and printed as ECMAScript's
//!   `Number.prototype.toString` prints it (§3.2.2.3): `100`, `100.0` and `1e2` are all `100`,
//!   `-0` is `0`, `1e21` is `1e+21`, `1e-7` is `1e-7`. Integers beyond 2^53 lose precision as
//!   they would in any I-JSON peer (`9007199254740993` prints as `9007199254740992`);
//! - strings escape only `"`, `\` and U+0000..U+001F, the latter as `\b \t \n \f \r` or
//!   lowercase `\u00xx` (§3.2.2.2); everything else is written as is (UTF-8);
//! - no whitespace.
//!
//! `serde_json::Value` cannot hold NaN or infinities, so every value has a canonical form.

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The RFC 8785 canonical serialization of `v` (see the module docs).
pub fn canonical_string(v: &Value) -> String {
    let mut out = String::with_capacity(64);
    write_value(&mut out, v);
    out
}

/// Appends the canonical form of `v` to `out`.
fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut members: Vec<(&String, &Value)> = m.iter().collect();
            members.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, (k, x)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, x);
            }
            out.push('}');
        }
    }
}

/// Appends `n`, as an IEEE 754 double, in ECMAScript `Number.prototype.toString` form.
fn write_number(out: &mut String, n: &Number) {
    // Without serde_json's `arbitrary_precision`, every Number converts to f64 (ints may round).
    let x = n.as_f64().unwrap_or(0.0);
    out.push_str(&format_f64(x));
}

/// `x` as ECMAScript's `Number.prototype.toString` prints it (ECMA-262 §6.1.6.1.20), finite `x`.
///
/// `ryu` gives the shortest digits that round-trip, the closest on ties and the even one when two
/// are equally close, which is the digit string ECMAScript asks for (Rust's own `{:e}` rounds such
/// ties up: `1424953923781206.25` must print `…206.2`). Only the placement of the decimal point and
/// exponent is redone here.
pub fn format_f64(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        // -0 prints as 0; non-finite numbers cannot occur in a serde_json Value.
        return "0".to_string();
    }
    let mut buf = ryu::Buffer::new();
    let (digits, n) = decimal_digits(buf.format_finite(x.abs()));
    let k = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    let mut s = String::with_capacity(digits.len() + 8);
    if x < 0.0 {
        s.push('-');
    }
    if k <= n && n <= 21 {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        s.push_str(int);
        s.push('.');
        s.push_str(frac);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-n) as usize));
        s.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1);
        s.push_str(first);
        if !rest.is_empty() {
            s.push('.');
            s.push_str(rest);
        }
        let _ = write!(s, "e{}{}", if n - 1 < 0 { '-' } else { '+' }, (n - 1).abs());
    }
    s
}

/// The significant digits `d1..dk` (no leading or trailing zeros) and the exponent `n` with
/// value = 0.d1..dk × 10^n, of a positive decimal such as `123.45`, `1e21` or `1.5E-7`.
fn decimal_digits(text: &str) -> (String, i32) {
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut n = i32::try_from(int.len()).unwrap_or(0) + exp;
    let all = format!("{int}{frac}");
    let trimmed = all.trim_start_matches('0');
    n -= i32::try_from(all.len() - trimmed.len()).unwrap_or(0);
    (trimmed.trim_end_matches('0').to_string(), n)
}

/// Appends `s` as a JSON string escaped per RFC 8785 §3.2.2.2.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\u{8}' => "\\b",
            '\t' => "\\t",
            '\n' => "\\n",
            '\u{c}' => "\\f",
            '\r' => "\\r",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push_str(esc);
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// SHA-256 of the canonical serialization, hex.
pub fn hash(v: &Value) -> String {
    hash_bytes(canonical_string(v).as_bytes())
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn hash_bytes(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first 16 hex digits of [`hash`].
pub fn short_hash(v: &Value) -> String {
    hash(v).chars().take(16).collect()
}

#[cfg(test)]
mod tests;
