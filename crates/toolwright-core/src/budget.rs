//! The output budget: results larger than a tool's limit are cut to valid JSON.

use crate::envelope::{Outcome, Truncation};
use serde_json::Value;

fn size(v: &Value) -> usize {
    serialized_len(v, usize::MAX)
}

/// The length of `v` serialized, counted without building the text; counting stops (and
/// `limit + 1` comes back) once it passes `limit`, so a huge result is not walked whole.
fn serialized_len(v: &Value, limit: usize) -> usize {
    struct Count {
        n: usize,
        limit: usize,
    }
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.n = self.n.saturating_add(buf.len());
            if self.n > self.limit {
                return Err(std::io::Error::other("over the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count { n: 0, limit };
    match serde_json::to_writer(&mut c, v) {
        Ok(()) => c.n,
        Err(_) => limit.saturating_add(1),
    }
}

/// Whether `v` serialized fits in `limit` bytes.
fn fits_in(v: &Value, limit: usize) -> bool {
    // An upper bound on the serialized length, from the lengths of the strings and the shape
    // alone (no byte is escaped or counted): most results are settled without serializing.
    if length_bound(v, limit, 0).is_some() {
        return true;
    }
    serialized_len(v, limit) <= limit
}

/// How deep [`length_bound`] walks before it gives up (the exact count then decides).
const BOUND_DEPTH: usize = 32;

/// An upper bound on the length of `v` serialized, when it is at most `limit` (`None` when the
/// bound passes `limit` or `v` is deeper than [`BOUND_DEPTH`]). A number is at most 24 bytes, a
/// string's every byte at most a six-byte escape plus its quotes, and arrays and objects add
/// their brackets, commas and colons.
fn length_bound(v: &Value, limit: usize, depth: usize) -> Option<usize> {
    let string = |s: &str| s.len().saturating_mul(6).saturating_add(2);
    let n = match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 24,
        Value::String(s) => string(s),
        Value::Array(items) if depth < BOUND_DEPTH => {
            let mut n = 2 + items.len();
            for item in items {
                n = n.saturating_add(length_bound(item, limit.checked_sub(n)?, depth + 1)?);
            }
            n
        }
        Value::Object(map) if depth < BOUND_DEPTH => {
            let mut n = 2 + 2 * map.len();
            for (k, item) in map {
                n = n.saturating_add(string(k));
                n = n.saturating_add(length_bound(item, limit.checked_sub(n)?, depth + 1)?);
            }
            n
        }
        Value::Array(_) | Value::Object(_) => return None,
    };
    (n <= limit).then_some(n)
}

/// An array found in a result: its serialized size, its JSON pointer and the pointer's tokens.
type Found = (usize, String, Vec<String>);

/// The arrays inside `v` (depth-first), with their serialized sizes.
fn arrays(v: &Value, path: (String, Vec<String>), out: &mut Vec<Found>, depth: usize) {
    if depth > 16 {
        return;
    }
    let child = |path: &(String, Vec<String>), tok: String| {
        let esc = tok.replace('~', "~0").replace('/', "~1");
        let mut toks = path.1.clone();
        toks.push(tok);
        (format!("{}/{esc}", path.0), toks)
    };
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate().take(64) {
                arrays(item, child(&path, i.to_string()), out, depth + 1);
            }
            out.push((size(v), path.0, path.1));
        }
        Value::Object(map) => {
            for (k, item) in map {
                arrays(item, child(&path, k.clone()), out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A copy of `v` in which the array at `tokens` keeps only its first `keep` items; the rest of
/// that array is never copied.
fn clone_pruned(v: &Value, tokens: &[String], keep: usize) -> Value {
    match (tokens.split_first(), v) {
        (None, Value::Array(items)) => Value::Array(items.iter().take(keep).cloned().collect()),
        (Some((tok, rest)), Value::Object(map)) => Value::Object(
            map.iter()
                .map(|(k, x)| {
                    let x = if k == tok {
                        clone_pruned(x, rest, keep)
                    } else {
                        x.clone()
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        (Some((tok, rest)), Value::Array(items)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    if i.to_string() == *tok {
                        clone_pruned(x, rest, keep)
                    } else {
                        x.clone()
                    }
                })
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// The longest prefix of the array at `tokens` that fits, counted item by item (each item is
/// measured up to the limit only), and the document with it; `None` when even an empty array
/// does not fit.
fn array_prefix(data: &Value, found: &Found, limit: usize) -> Option<(Value, Truncation)> {
    let (_, path, tokens) = found;
    let items = data.pointer(path).and_then(Value::as_array)?;
    let empty = clone_pruned(data, tokens, 0);
    if !fits_in(&empty, limit) {
        return None;
    }
    let mut used = size(&empty);
    let mut keep = 0usize;
    for (i, item) in items.iter().enumerate() {
        let add = serialized_len(item, limit).saturating_add(usize::from(i > 0));
        if used.saturating_add(add) > limit {
            break;
        }
        used += add;
        keep = i + 1;
    }
    let d = clone_pruned(data, tokens, keep);
    fits_in(&d, limit).then(|| {
        (
            d,
            Truncation {
                total: items.len(),
                showing: keep,
                path: path.clone(),
            },
        )
    })
}

fn strings(v: &Value, path: String, out: &mut Vec<(usize, String)>, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        Value::String(s) => out.push((s.len(), path)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(item, format!("{path}/{i}"), out, depth + 1);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let k = k.replace('~', "~0").replace('/', "~1");
                strings(item, format!("{path}/{k}"), out, depth + 1);
            }
        }
        _ => {}
    }
}

fn escaped_char_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// The longest prefix of `s`, in bytes on a char boundary, whose escaped length is at most
/// `room`.
fn prefix_within(s: &str, room: usize) -> usize {
    let mut used = 0usize;
    for (i, c) in s.char_indices() {
        used += escaped_char_len(c);
        if used > room {
            return i;
        }
    }
    s.len()
}

/// Cuts the longest strings of `data` (by serialized size, largest first) until it fits,
/// filling the budget: each cut keeps as much of its string as the rest of the document leaves
/// room for. Reports the first string cut.
fn cut_strings(data: &Value, limit: usize) -> Option<(Value, Truncation)> {
    const ELLIPSIS: char = '…';
    let mut found = Vec::new();
    strings(data, String::new(), &mut found, 0);
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut d = data.clone();
    let mut first: Option<Truncation> = None;
    for (_, path) in found.iter().take(64) {
        // The size of everything else, without walking the (possibly huge) string.
        let Some(Value::String(s)) = d.pointer_mut(path) else {
            continue;
        };
        let full = std::mem::take(s);
        let rest = size(&d); // with the string's quotes
        let Some(Value::String(s)) = d.pointer_mut(path) else {
            continue;
        };
        *s = full;
        let room = limit
            .saturating_sub(rest)
            .saturating_sub(ELLIPSIS.len_utf8());
        let keep = prefix_within(s, room);
        let total = s.len();
        s.truncate(keep);
        s.push(ELLIPSIS);
        first.get_or_insert(Truncation {
            total,
            showing: keep,
            path: path.clone(),
        });
        if fits_in(&d, limit) {
            return first.map(|t| (d, t));
        }
    }
    None
}

/// Cuts `data` so that it serializes to at most `limit` bytes, keeping it valid JSON: the largest
/// array is shortened first (as few items dropped as possible), then the longest string. Returns
/// `None` when `data` already fits.
pub fn truncate_to_budget(data: &Value, limit: usize) -> Option<(Value, Truncation)> {
    if fits_in(data, limit) {
        return None;
    }
    let mut found = Vec::new();
    arrays(data, (String::new(), Vec::new()), &mut found, 0);
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    for f in &found {
        if let Some(cut) = array_prefix(data, f, limit) {
            return Some(cut);
        }
    }
    // No array helps: shorten the longest strings, measured as serialized (escaped).
    if let Some(cut) = cut_strings(data, limit) {
        return Some(cut);
    }
    Some((
        Value::Null,
        Truncation {
            total: size(data),
            showing: 0,
            path: String::new(),
        },
    ))
}

/// Applies the budget to an outcome's `data`, turning it `partial` with `meta.truncated` and an
/// instruction on how to narrow the request.
pub fn apply_output_budget(mut outcome: Outcome, limit: usize) -> Outcome {
    apply_output_budget_in_place(&mut outcome, limit);
    outcome
}

/// [`apply_output_budget`] on an envelope in place (an envelope is large: the runtime does not
/// move it through here).
pub fn apply_output_budget_in_place(outcome: &mut Outcome, limit: usize) {
    let Some(data) = &outcome.data else {
        return;
    };
    if let Some((cut, t)) = truncate_to_budget(data, limit) {
        let what = if t.path.is_empty() {
            "the result".to_string()
        } else {
            format!("`{}`", t.path)
        };
        outcome.message = format!(
            "The result was too large ({} bytes over a {} byte budget); {} was cut to {} of {}.",
            size(data).saturating_sub(limit),
            limit,
            what,
            t.showing,
            t.total
        )
        .into();
        outcome.instruction = Some(
            "Only part of the result is shown. Narrow the request (filters, a smaller limit, a more \
             specific query) to see the rest."
                .to_string(),
        );
        outcome.data = Some(cut);
        outcome.mark_partial();
        outcome.meta.truncated = Some(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_scalar_bounds_hold() {
        let scalars = [
            json!(null),
            json!(false),
            json!(-1.7976931348623157e308),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(-2.2250738585072014e-308),
            json!("\u{0}\u{1f}\"\\é"),
        ];
        for v in scalars {
            let n = serde_json::to_string(&v).unwrap().len();
            assert!(fits_in(&v, n), "{v}");
            assert!(!fits_in(&v, n - 1), "{v}");
        }
    }

    #[test]
    fn the_counted_length_is_the_serialized_length() {
        let v = json!({"a": [1, 2.5, "x\"y", null, {"é": true}], "b": "\u{1F600}"});
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(size(&v), text.len());
        assert!(fits_in(&v, text.len()));
        assert!(!fits_in(&v, text.len() - 1));
        assert_eq!(serialized_len(&v, 3), 4, "counting stops past the limit");
    }

    #[test]
    fn shortens_the_largest_array_to_fit() {
        let items: Vec<Value> = (0..1000)
            .map(|i| json!({"id": i, "name": format!("item {i}")}))
            .collect();
        let data = json!({"count": 1000, "items": items});
        let (cut, t) = truncate_to_budget(&data, 2048).unwrap_or_else(|| unreachable!());
        assert!(serde_json::to_string(&cut).map(|s| s.len()).unwrap_or(0) <= 2048);
        assert_eq!(t.total, 1000);
        assert!(t.showing > 10 && t.showing < 1000, "{t:?}");
        assert_eq!(t.path, "/items");
    }

    #[test]
    fn long_strings_are_cut_on_a_char_boundary() {
        let data = json!({"text": "é".repeat(10_000)});
        let (cut, _) = truncate_to_budget(&data, 1000).unwrap_or_else(|| unreachable!());
        assert!(serde_json::to_string(&cut).map(|s| s.len()).unwrap_or(0) <= 1000);
    }

    #[test]
    fn small_results_are_untouched() {
        assert!(truncate_to_budget(&json!({"a": 1}), 100).is_none());
    }

    #[test]
    fn strings_that_need_escaping_fill_the_budget() {
        // Issue 14, item 5: 17,000 `"` serialize to 34,000 bytes; the cut used to count them
        // as 17,000 and showed nothing.
        let data = json!({"text": "\"".repeat(17_000)});
        let (cut, t) = truncate_to_budget(&data, 16 * 1024).unwrap_or_else(|| unreachable!());
        let n = serde_json::to_string(&cut).map(|s| s.len()).unwrap_or(0);
        assert!(n <= 16 * 1024, "{n}");
        assert!(n > 16 * 1024 - 16, "the budget is filled: {n}");
        assert!(t.showing > 8000, "{t:?}");
        // A JSON document as text (many quotes), and control characters (6 bytes each).
        let doc = serde_json::to_string(&json!(
            (0..5000).map(|i| json!({"k": i})).collect::<Vec<_>>()
        ))
        .unwrap_or_default();
        let data = json!({"path": "a.json", "content": doc});
        let (cut, _) = truncate_to_budget(&data, 16 * 1024).unwrap_or_else(|| unreachable!());
        let n = serde_json::to_string(&cut).map(|s| s.len()).unwrap_or(0);
        assert!(n <= 16 * 1024 && n > 16 * 1024 - 16, "{n}");
        let data = json!({"text": "\u{1}".repeat(10_000)});
        let (cut, _) = truncate_to_budget(&data, 1000).unwrap_or_else(|| unreachable!());
        let n = serde_json::to_string(&cut).map(|s| s.len()).unwrap_or(0);
        assert!(n <= 1000 && n > 990, "{n}");
    }

    #[test]
    fn several_long_strings_are_cut_in_turn() {
        let data = json!({"a": "x".repeat(5000), "b": "y".repeat(5000)});
        let (cut, t) = truncate_to_budget(&data, 300).unwrap_or_else(|| unreachable!());
        assert!(serde_json::to_string(&cut).map(|s| s.len()).unwrap_or(0) <= 300);
        assert_eq!(t.total, 5000);
    }

    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::from),
            "[\\u{0}-\\u{1f}\"\\\\]{0,6}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn the_length_bound_never_undercounts(v in json(), slack in 0usize..64) {
            let n = size(&v);
            if let Some(bound) = length_bound(&v, usize::MAX, 0) {
                proptest::prop_assert!(bound >= n, "bound {bound} < {n} for {v}");
            }
            for limit in [n.saturating_sub(slack + 1), n, n + slack] {
                proptest::prop_assert_eq!(fits_in(&v, limit), n <= limit, "limit {} for {}", limit, v);
            }
        }
    }

    #[test]
    fn a_deep_result_is_counted_exactly() {
        let mut v = json!("x");
        for _ in 0..100 {
            v = json!([v]);
        }
        assert_eq!(length_bound(&v, usize::MAX, 0), None);
        let n = size(&v);
        assert!(fits_in(&v, n) && !fits_in(&v, n - 1));
    }
}
