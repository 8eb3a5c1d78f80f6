//! Answers written from envelopes, for a model too small to write them reliably.
//!
//! [`compose_answer`] turns tool results into a sentence from the envelope alone (its message,
//! the main value, dates); [`states_result`] checks whether a model's own answer mentions the
//! facts a person needs (the main number and any date). The local provider uses the model's text
//! when it passes and the composed answer otherwise, and says which in the trace.
//!
//! The description is generic: it knows envelopes, not tools. A host that knows its tools can
//! give a [`Summarizer`] with a better sentence for some of them (the demo toolset has one for
//! conversions and weather); the generic description is the fallback.

use serde_json::Value;
use std::sync::Arc;

/// A host's sentence for the result of one of its tools: `(tool, envelope) -> Some(sentence)`,
/// or `None` to fall back to the generic description. Called for results that did not fail and
/// need no confirmation.
///
/// ```
/// use toolwright_local::compose::{Summarizer, compose_answer};
/// let s = Summarizer::new(|tool, env| {
///     (tool == "add").then(|| format!("The sum is {}.", env["data"]))
/// });
/// let env = serde_json::json!({"status": "success", "message": "add succeeded.", "data": 5});
/// assert_eq!(compose_answer(&[("add".into(), env)], Some(&s)), "The sum is 5.");
/// ```
#[derive(Clone)]
pub struct Summarizer(Arc<SummaryFn>);

/// The function behind a [`Summarizer`].
type SummaryFn = dyn Fn(&str, &Value) -> Option<String> + Send + Sync;

impl Summarizer {
    /// Wraps a function of `(tool, envelope)`.
    pub fn new(f: impl Fn(&str, &Value) -> Option<String> + Send + Sync + 'static) -> Self {
        Summarizer(Arc::new(f))
    }

    /// The host's sentence for `envelope` of `tool`, if it has one.
    pub fn summarize(&self, tool: &str, envelope: &Value) -> Option<String> {
        (self.0)(tool, envelope)
    }
}

impl std::fmt::Debug for Summarizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Summarizer(..)")
    }
}

/// Keys that hold the main value of a result, in order of preference.
const MAIN_KEYS: &[&str] = &[
    "converted",
    "result",
    "answer",
    "value",
    "total",
    "temperature",
    "count",
];

/// A number as a person would read it (no `.0`, at most 4 decimals).
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        let s = format!("{n:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => n.as_f64().map(format_number),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The date part (`YYYY-MM-DD`) of a date or timestamp string.
fn date_part(s: &str) -> Option<&str> {
    let d = s.get(..10)?;
    let b = d.as_bytes();
    let ok = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    ok.then_some(d)
}

/// The facts an answer must state for `data`: the main value and every date.
pub fn key_facts(data: &Value) -> Vec<String> {
    let mut facts = Vec::new();
    match data {
        Value::Object(m) => {
            if let Some(v) = MAIN_KEYS
                .iter()
                .find_map(|k| m.get(*k))
                .and_then(scalar_text)
            {
                facts.push(v);
            }
            for (k, v) in m {
                if (k.contains("date") || k.ends_with("_at") || k == "time")
                    && let Some(d) = v.as_str().and_then(date_part)
                {
                    facts.push(d.to_string());
                }
            }
        }
        other => facts.extend(scalar_text(other)),
    }
    facts
}

/// Whether `text` states every key fact of every successful envelope in `envelopes`.
pub fn states_result(text: &str, envelopes: &[Value]) -> bool {
    let t = text.trim();
    if t.is_empty() {
        return false;
    }
    let flat = t.replace([',', '\u{a0}'], "");
    envelopes
        .iter()
        .filter(|e| e.get("status").and_then(Value::as_str) != Some("error"))
        .filter_map(|e| e.get("data"))
        .flat_map(key_facts)
        .all(|f| mentions_fact(&flat, &f.replace(',', "")))
}

/// Whether `text` contains `fact` as a whole: a number must not be part of a longer number
/// ("10" does not state "0"; "96.041" does not state "96.04").
fn mentions_fact(text: &str, fact: &str) -> bool {
    if fact.is_empty() {
        return true;
    }
    let numeric = fact
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == '-');
    if !numeric {
        return text.contains(fact);
    }
    let is_digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
    text.match_indices(fact).any(|(i, _)| {
        let mut before = text.get(..i).unwrap_or_default().chars().rev();
        let (b1, b2) = (before.next(), before.next());
        let mut after = text.get(i + fact.len()..).unwrap_or_default().chars();
        let (a1, a2) = (after.next(), after.next());
        // Part of a longer number: a digit next to it, or a decimal point then a digit.
        let longer_before = is_digit(b1) || (b1 == Some('.') && is_digit(b2));
        let longer_after = is_digit(a1) || (a1 == Some('.') && is_digit(a2));
        !longer_before && !longer_after
    })
}

/// Up to 5 items of a list as text: strings as they are, objects by their name or title.
fn list_items(items: &[Value]) -> String {
    if items.is_empty() {
        return "none".to_string();
    }
    let shown: Vec<String> = items
        .iter()
        .take(5)
        .map(|it| match it {
            Value::Object(o) => ["name", "title", "path", "id"]
                .iter()
                .find_map(|k| o.get(*k).and_then(scalar_text))
                .unwrap_or_else(|| it.to_string()),
            other => scalar_text(other).unwrap_or_else(|| other.to_string()),
        })
        .collect();
    let more = items.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// One sentence for one envelope of `tool`: the host's ([`Summarizer`]) when it has one, else
/// the envelope's own message, or its data as `key: value` pairs, with any date it carries.
pub fn describe(tool: &str, envelope: &Value, summaries: Option<&Summarizer>) -> String {
    let status = envelope.get("status").and_then(Value::as_str).unwrap_or("");
    let message = envelope
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    if status == "error" {
        let err = envelope.get("error");
        let msg = err
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or(message);
        let hint = err
            .and_then(|e| e.get("suggestion"))
            .and_then(Value::as_str)
            .unwrap_or("");
        return format!("{tool} failed: {msg} {hint}").trim().to_string();
    }
    if status == "needs_confirmation" {
        return format!("{tool} needs a person's approval before it runs; nothing was done yet.");
    }
    if let Some(s) = summaries.and_then(|h| h.summarize(tool, envelope)) {
        return s;
    }
    let data = envelope.get("data").cloned().unwrap_or(Value::Null);
    let default_message = message.is_empty() || message.ends_with(" succeeded.");
    let mut s = if default_message {
        match &data {
            Value::Object(m) => {
                let mut parts: Vec<String> = m
                    .iter()
                    .filter_map(|(k, v)| {
                        scalar_text(v)
                            .filter(|t| t.len() <= 80)
                            .map(|t| format!("{k}: {t}"))
                    })
                    .take(8)
                    .collect();
                for (k, v) in m {
                    if let Value::Array(items) = v {
                        parts.push(format!("{k}: {}", list_items(items)));
                    }
                }
                format!("{tool}: {}", parts.join("; "))
            }
            Value::Array(items) => format!("{tool} returned {} item(s).", items.len()),
            other => scalar_text(other)
                .map_or_else(|| format!("{tool} succeeded."), |t| format!("{tool}: {t}")),
        }
    } else {
        message.to_string()
    };
    // Dates the sentence does not say yet.
    for f in key_facts(&data) {
        if date_part(&f).is_some() && !s.contains(&f) {
            s.push_str(&format!(" (as of {f})"));
        }
    }
    if !s.ends_with('.') && !s.ends_with(')') {
        s.push('.');
    }
    s
}

/// An answer from the envelopes of the last calls: one sentence per call ([`describe`]).
pub fn compose_answer(results: &[(String, Value)], summaries: Option<&Summarizer>) -> String {
    results
        .iter()
        .map(|(tool, env)| describe(tool, env, summaries))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn data_without_a_message_is_described_with_its_date() {
        let env = json!({"status": "success", "message": "convert succeeded.",
            "data": {"amount": 100.0, "from": "USD", "to": "EUR", "converted": 96.04,
                     "rates_date": "2026-11-27"}});
        let s = describe("convert", &env, None);
        assert_eq!(
            s,
            "convert: amount: 100; from: USD; to: EUR; converted: 96.04; rates_date: 2026-11-27."
        );
        assert!(states_result(&s, std::slice::from_ref(&env)));
        assert!(!states_result(
            "About 96 euros.",
            std::slice::from_ref(&env)
        ));
        assert!(states_result(
            "100 USD is 96.04 EUR at the 2026-11-27 rates.",
            &[env]
        ));
    }

    #[test]
    fn a_summarizer_speaks_first_and_falls_back_to_the_description() {
        let s = Summarizer::new(|tool, env| {
            (tool == "sum").then(|| format!("The sum is {}.", env["data"]))
        });
        let ok = json!({"status": "success", "message": "sum succeeded.", "data": 5});
        assert_eq!(describe("sum", &ok, Some(&s)), "The sum is 5.");
        assert_eq!(describe("other", &ok, Some(&s)), "other: 5.");
        // failures are described generically, whatever the summarizer says
        let err = json!({"status": "error", "message": "bad", "error": {"message": "bad"}});
        assert_eq!(describe("sum", &err, Some(&s)), "sum failed: bad");
    }

    #[test]
    fn messages_and_scalars() {
        let env = json!({"status": "success", "message": "17*23 = 391", "data": 391});
        assert_eq!(describe("calculate", &env, None), "17*23 = 391.");
        assert!(states_result(
            "The answer is 391.",
            std::slice::from_ref(&env)
        ));
        assert!(!states_result(
            "The answer is 392.",
            std::slice::from_ref(&env)
        ));
        assert!(!states_result(
            "The answer is 3910 or 1391 or 391.5.",
            std::slice::from_ref(&env)
        ));
        assert!(states_result("It is 391.", &[env]));
        let zero = json!({"status": "success", "data": {"count": 0}});
        assert!(!states_result(
            "There are 10 files.",
            std::slice::from_ref(&zero)
        ));
        assert!(states_result("There are 0 files.", &[zero]));
        let err = json!({"status": "error", "message": "No weather data for `X`.",
            "error": {"code": "NOT_FOUND", "message": "No weather data for `X`.", "suggestion": "Try Paris."}});
        assert_eq!(
            describe("get_weather", &err, None),
            "get_weather failed: No weather data for `X`. Try Paris."
        );
    }

    #[test]
    fn lists_name_their_items() {
        let env = json!({"status": "success", "message": "query_users succeeded.",
            "data": {"count": 2, "users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Ken"}]}});
        assert_eq!(
            describe("query_users", &env, None),
            "query_users: count: 2; users: Ada, Ken."
        );
    }
}
