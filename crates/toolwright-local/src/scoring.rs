//! Offered values scored whole: where a grounded string parameter may take one of several texts
//! (an `enum` the passes built, or the schema's own), the model wrote one of them greedily, token
//! by token under the grammar, so a likely first token could lead it into a text it would not
//! have chosen whole. This module finds those parameters in the text the model generated and
//! builds, for each, the reply's beginning up to the parameter's value and the value's
//! alternatives; the provider has the model score each alternative whole, and [`ValueRule`]
//! picks one.
//!
//! ```
//! use toolwright_local::scoring::string_slots;
//! let text = r#"{"tool": "f", "arguments": {"n": 2, "city": "New York", "tags": ["a"]}}"#;
//! let slots = string_slots(text);
//! assert_eq!(slots.len(), 1);
//! assert_eq!(slots[0].key, "city");
//! assert_eq!(&text[slots[0].start..slots[0].end], r#""New York""#);
//! assert_eq!(&text[..slots[0].after_colon], r#"{"tool": "f", "arguments": {"n": 2, "city":"#);
//! ```

use serde_json::Value;
use toolwright_core::ToolSpec;

/// A string argument of the first call as the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The parameter.
    pub key: String,
    /// Byte offset just after the `:` that follows the key.
    pub after_colon: usize,
    /// Byte offset of the value's opening quote.
    pub start: usize,
    /// Byte offset just after the value's closing quote.
    pub end: usize,
}

/// The string values of the arguments object of a call `{"tool": ..., "arguments": {...}}` as
/// written in `text`, in order; in a list of calls, those of the first. Text that is not such a
/// call, or is cut, gives the slots found before the problem.
pub fn string_slots(text: &str) -> Vec<Slot> {
    let b = text.as_bytes();
    let arguments: &[u8] = if text.trim_start().starts_with('[') {
        b"[{{"
    } else {
        b"{{"
    };
    let mut stack: Vec<u8> = Vec::new();
    let mut expect_key = false;
    let mut slots = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                let Some(end) = string_end(b, i) else {
                    return slots;
                };
                if expect_key && stack == arguments {
                    expect_key = false;
                    let Some(key) = text.get(i..end).and_then(|k| serde_json::from_str(k).ok())
                    else {
                        return slots;
                    };
                    let colon = skip_ws(b, end);
                    if b.get(colon) != Some(&b':') {
                        return slots;
                    }
                    let value = skip_ws(b, colon + 1);
                    if b.get(value) == Some(&b'"') {
                        let Some(value_end) = string_end(b, value) else {
                            return slots;
                        };
                        slots.push(Slot {
                            key,
                            after_colon: colon + 1,
                            start: value,
                            end: value_end,
                        });
                        i = value_end;
                    } else {
                        i = value;
                    }
                    continue;
                }
                i = end;
                continue;
            }
            b'{' => {
                stack.push(c);
                expect_key = true;
            }
            b'[' => {
                stack.push(c);
                expect_key = false;
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
                // The first call of a list has ended.
                if stack == [b'['] {
                    return slots;
                }
            }
            b',' => expect_key = stack.last() == Some(&b'{'),
            _ => {}
        }
        i += 1;
    }
    slots
}

/// The offset just after the JSON string that opens at `open` (a `"`), escapes honoured.
fn string_end(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The texts a string parameter of `spec` may take, when it may take two or more and nothing
/// else (an `enum` of strings).
pub fn offered(spec: &ToolSpec, key: &str) -> Option<Vec<String>> {
    let p = spec.parameters.get("properties")?.get(key)?;
    let values: Vec<String> = p
        .get("enum")?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<_>>()?;
    (values.len() >= 2).then_some(values)
}

/// One parameter to score: the reply up to its value, and the value's alternatives.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The parameter.
    pub key: String,
    /// The generated text up to and including the `:` before the value.
    pub prefix: String,
    /// The texts the parameter may take that are not part of the one the model wrote and do
    /// not hold it, and that one, `values[chosen]`.
    pub values: Vec<String>,
    /// Index in `values` of the model's own choice.
    pub chosen: usize,
    /// For each value, what follows `prefix` when the model writes it: the spacing the model
    /// used, then the value as a JSON string, quotes included.
    pub continuations: Vec<String>,
}

/// The parameters of the call generated as `text` (one call to `spec`, with arguments `args`)
/// that may take one of several offered texts: one [`Offer`] each, in the order written. A
/// parameter whose written value is not `args`' (a pass changed it), or whose other texts are
/// all parts of the written one or hold it, is left out.
pub fn offers(text: &str, spec: &ToolSpec, args: &Value) -> Vec<Offer> {
    string_slots(text)
        .into_iter()
        .filter_map(|s| {
            let values = offered(spec, &s.key)?;
            let written: String = serde_json::from_str(text.get(s.start..s.end)?).ok()?;
            if args.get(&s.key)?.as_str()? != written {
                return None;
            }
            // Only values the rule may pick are scored ([`ValueRule::pick`]).
            let values: Vec<String> = values
                .into_iter()
                .filter(|v| *v == written || !part_of_either(v, &written))
                .collect();
            let chosen = values.iter().position(|v| *v == written)?;
            if values.len() < 2 {
                return None;
            }
            let spacing = text.get(s.after_colon..s.start)?;
            let continuations = values
                .iter()
                .map(|v| format!("{spacing}{}", Value::String(v.clone())))
                .collect();
            Some(Offer {
                prefix: text.get(..s.after_colon)?.to_string(),
                key: s.key,
                values,
                chosen,
                continuations,
            })
        })
        .collect()
}

/// How the whole-value scores overrule the value the model wrote greedily.
///
/// Greedy decoding commits to a value's first token before it sees the rest, and the summed
/// log-probability of a whole value favours short values: the two are second opinions on each
/// other. The written value stays unless another one scores at least `margin` nats higher
/// whole, and never gives way to a value that is part of it or that it is part of ("spec" for
/// "cronjob.spec", "vercel" for "vercel/next.js"): where two such values part, the model
/// already chose, token by token, between going on and closing the text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueRule {
    /// How much higher (in nats, summed over the value's tokens and its closing quote) another
    /// value must score whole than the written one to replace it.
    pub margin: f32,
}

impl Default for ValueRule {
    /// The margin calibrated on the MCP dev set (`crates/toolwright-eval/data/mcp`; see the
    /// eval crate's README, "Arguments: offered values scored whole").
    fn default() -> Self {
        ValueRule { margin: 2.0 }
    }
}

impl ValueRule {
    /// The index of the value to keep among `values`, whose whole-value scores are `scores`
    /// (summed log-probability, tokens), where the model wrote `values[written]`.
    ///
    /// ```
    /// use toolwright_local::scoring::ValueRule;
    /// let values = ["cronjob.spec".to_string(), "spec".to_string(), "pods".to_string()];
    /// let rule = ValueRule { margin: 1.0 };
    /// // "spec" scores higher but is part of the written value; "pods" is not far enough ahead.
    /// assert_eq!(rule.pick(&values, &[(-7.5, 7), (-6.1, 3), (-6.9, 2)], 0), 0);
    /// assert_eq!(rule.pick(&values, &[(-9.5, 7), (-6.1, 3), (-6.9, 2)], 0), 2);
    /// ```
    pub fn pick(&self, values: &[String], scores: &[(f32, usize)], written: usize) -> usize {
        let Some(w) = values.get(written) else {
            return written;
        };
        let bar = scores
            .get(written)
            .map_or(f32::INFINITY, |(lp, _)| lp + self.margin);
        let mut best = (written, bar);
        for (i, (v, (lp, _))) in values.iter().zip(scores).enumerate() {
            if i != written && lp.is_finite() && *lp > best.1 && !part_of_either(v, w) {
                best = (i, *lp);
            }
        }
        best.0
    }
}

/// Whether one of two texts holds the other, letter case aside.
fn part_of_either(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    a.contains(&b) || b.contains(&a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> ToolSpec {
        ToolSpec::new(
            "f",
            "",
            json!({"type": "object", "properties": {
                "city": {"type": "string", "enum": ["New York", "Boston", "New York City"]},
                "unit": {"type": "string", "enum": ["C"]},
                "note": {"type": "string"}}}),
        )
    }

    #[test]
    fn slots_skip_nested_and_escaped_text() {
        let text = r#"{"tool":"f","arguments":{"a":{"city":"x"},"b":"say \"hi\", ok","c":["d"],"e" : "f"}}"#;
        let keys: Vec<String> = string_slots(text).into_iter().map(|s| s.key).collect();
        assert_eq!(keys, ["b", "e"]);
        assert!(string_slots(r#"{"tool": "f", "arguments": {"a": "cut"#).is_empty());
        assert!(string_slots("").is_empty());
        assert!(string_slots(r#"[{"tool": "f"}]"#).is_empty());
        let list =
            r#"[{ "tool": "f" ,"arguments": {"a": "x"}}, {"tool": "f", "arguments": {"a": "y"}}]"#;
        let slots = string_slots(list);
        assert_eq!(slots.len(), 1);
        assert_eq!(&list[slots[0].start..slots[0].end], r#""x""#);
    }

    #[test]
    fn offers_are_parameters_with_several_values_as_written() {
        let text = r#"{"tool": "f", "arguments": {"city":  "Boston", "unit": "C", "note": "x"}}"#;
        let args = json!({"city": "Boston", "unit": "C", "note": "x"});
        let o = offers(text, &spec(), &args);
        assert_eq!(o.len(), 1);
        assert_eq!(o[0].key, "city");
        assert_eq!(o[0].chosen, 1);
        assert_eq!(o[0].prefix, r#"{"tool": "f", "arguments": {"city":"#);
        assert_eq!(o[0].continuations[0], r#"  "New York""#);
        // A pass changed the value: nothing to score.
        assert!(offers(text, &spec(), &json!({"city": "New York"})).is_empty());
        // A value that holds the written one is not scored.
        let text = r#"{"tool": "f", "arguments": {"city": "New York"}}"#;
        let o = offers(text, &spec(), &json!({"city": "New York"}));
        assert_eq!(o[0].values, ["New York", "Boston"]);
    }

    #[test]
    fn the_written_value_stays_unless_another_scores_clearly_higher() {
        let values: Vec<String> = ["a", "b", "ab"].iter().map(|v| v.to_string()).collect();
        let rule = ValueRule { margin: 1.0 };
        assert_eq!(rule.pick(&values, &[(-5.0, 1), (-4.5, 1), (-1.0, 2)], 0), 0);
        assert_eq!(rule.pick(&values, &[(-5.0, 1), (-3.5, 1), (-1.0, 2)], 0), 1);
        assert_eq!(rule.pick(&values, &[(-5.0, 1), (-3.5, 1), (-3.0, 2)], 1), 1);
        assert_eq!(rule.pick(&values, &[(-5.0, 1), (f32::NAN, 1)], 0), 0);
        assert_eq!(rule.pick(&values, &[], 0), 0);
    }
}
