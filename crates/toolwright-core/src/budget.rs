//! The output budget: results larger than a tool's limit are cut to valid JSON.

use crate::envelope::{Outcome, Status, Truncation};
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
    serialized_len(v, limit) <= limit
}

/// Pointers to the arrays inside `v` (depth-first), with their serialized sizes.
fn arrays(v: &Value, path: String, out: &mut Vec<(usize, String)>, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        Value::Array(items) => {
            out.push((size(v), path.clone()));
            for (i, item) in items.iter().enumerate().take(64) {
                arrays(item, format!("{path}/{i}"), out, depth + 1);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let k = k.replace('~', "~0").replace('/', "~1");
                arrays(item, format!("{path}/{k}"), out, depth + 1);
            }
        }
        _ => {}
    }
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

/// Cuts `data` so that it serializes to at most `limit` bytes, keeping it valid JSON: the largest
/// array is shortened first (as few items dropped as possible), then the longest string. Returns
/// `None` when `data` already fits.
pub fn truncate_to_budget(data: &Value, limit: usize) -> Option<(Value, Truncation)> {
    if fits_in(data, limit) {
        return None;
    }
    let mut found = Vec::new();
    arrays(data, String::new(), &mut found, 0);
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, path) in &found {
        let total = data
            .pointer(path)
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        // Binary search the largest prefix that fits.
        let (mut lo, mut hi) = (0usize, total);
        let fits = |keep: usize| {
            let mut d = data.clone();
            if let Some(Value::Array(items)) = d.pointer_mut(path) {
                items.truncate(keep);
            }
            fits_in(&d, limit).then_some(d)
        };
        let mut best = fits(0);
        if best.is_none() {
            continue;
        }
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            match fits(mid) {
                Some(d) => {
                    best = Some(d);
                    lo = mid;
                }
                None => hi = mid - 1,
            }
        }
        if let Some(d) = best {
            return Some((
                d,
                Truncation {
                    total,
                    showing: lo,
                    path: path.clone(),
                },
            ));
        }
    }
    // No array helps: shorten the longest string.
    let mut found = Vec::new();
    strings(data, String::new(), &mut found, 0);
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    if let Some((len, path)) = found.first() {
        let overflow = size(data).saturating_sub(limit);
        let keep = len.saturating_sub(overflow + 16);
        let mut d = data.clone();
        if let Some(Value::String(s)) = d.pointer_mut(path) {
            let mut cut = keep.min(s.len());
            while cut > 0 && !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push('…');
        }
        if fits_in(&d, limit) {
            return Some((
                d,
                Truncation {
                    total: *len,
                    showing: keep,
                    path: path.clone(),
                },
            ));
        }
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
    let Some(data) = &outcome.data else {
        return outcome;
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
        );
        outcome.instruction = Some(
            "Only part of the result is shown. Narrow the request (filters, a smaller limit, a more \
             specific query) to see the rest."
                .to_string(),
        );
        outcome.data = Some(cut);
        if outcome.status == Status::Success {
            outcome.status = Status::Partial;
        }
        outcome.meta.truncated = Some(t);
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
