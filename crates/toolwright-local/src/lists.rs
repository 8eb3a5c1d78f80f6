//! Whole lists: an array parameter takes every item of the list the request writes.
//!
//! A request often lists the things a call acts on: "bibtex for pubmed 29961564, 30021884 and
//! 31043734", "mail ana@acme.com, bo@acme.com", "quotes for AAPL, MSFT and NVDA". A model of
//! 135M parameters writes the first item or two of such a list into an array parameter and then
//! repeats one (`["29961564", "29961564"]`); [`crate::passes::distinct_items`] drops the
//! repeat, and the call acts on fewer things than were asked for. [`whole_lists`] puts back the
//! whole list when what the model wrote is part of it.
//!
//! A list ([`listed`]) is two or more words of the request that look like values
//! ([`crate::cues::value_like`]: a digit, a mark such as `@ . / - _ :` inside, capitals) and are
//! written the same way ([`shape`]: `29961564` and `145642373` alike, `PROJ-12` and `OPS-7`
//! alike, two e-mail addresses alike), joined by commas, semicolons, `&`, `+`, "and" or "or",
//! or, for words with digits, by a space alone ("ids 5 6 7"). Plain English words never make
//! one ("bugs and features"): a clause joined by "and" reads as a list as often as not.
//!
//! An array is only filled when every item the model wrote is an item of one list, the list
//! holds more, and each item of the list is a value the parameter's (grounded) schema accepts:
//! of its items' type, among its items' `enum` when it has one, and no more of them than its
//! `maxItems`. An array of identifiers ([`crate::cues::holds_identifier`]) the model left empty
//! takes the request's list when it writes exactly one, of words with digits. The runtime still validates every call against the tool's advertised schema.

use serde_json::Value;
use toolwright_core::ToolSpec;

/// Words that join the last items of a list ("A, B and C", "A or B").
const JOINERS: [&str; 4] = ["and", "or", "&", "plus"];

/// How a value-like word is written, coarsely: an e-mail address, a URL, a path, or else its
/// alphanumeric runs classed (`x`: with a digit, `A`: capitals only, `a`: other letters) with
/// the marks between them kept: `29961564` → `x`, `PROJ-12` → `A-x`, a UUID → `x-x-x-x-x`
/// mostly.
///
/// ```
/// use toolwright_local::lists::shape;
/// assert_eq!(shape("29961564"), shape("145642373"));
/// assert_eq!(shape("PROJ-12"), shape("OPS-7"));
/// assert_eq!(shape("ana@acme.com"), shape("bo.smith@example.org"));
/// assert_ne!(shape("PROJ-12"), shape("4521"));
/// ```
pub fn shape(word: &str) -> String {
    if crate::cues::email_like(word) {
        return "email".to_string();
    }
    if word.contains("://") || word.starts_with("www.") {
        return "url".to_string();
    }
    if crate::cues::path_like(word) {
        return "path".to_string();
    }
    let mut out = String::new();
    let mut run = String::new();
    let class = |run: &str| {
        if run.chars().any(|c| c.is_ascii_digit()) {
            'x'
        } else if run.chars().all(|c| c.is_uppercase()) {
            'A'
        } else {
            'a'
        }
    };
    for c in word.chars() {
        if c.is_alphanumeric() {
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            out.push(class(&run));
            run.clear();
        }
        out.push(c);
    }
    if !run.is_empty() {
        out.push(class(&run));
    }
    out
}

/// The lists of value-like words that `query` writes (see the module docs), each in the
/// request's order, two items or more.
///
/// ```
/// use toolwright_local::lists::listed;
/// let q = "bibtex entries for pubmed 29961564, 30021884 and 31043734 please";
/// assert_eq!(listed(q), [["29961564", "30021884", "31043734"]]);
/// assert_eq!(listed("close PROJ-12, PROJ-14, and OPS-7 today"), [["PROJ-12", "PROJ-14", "OPS-7"]]);
/// assert!(listed("close issue 12 and notify alice").is_empty());
/// assert!(listed("bugs and features").is_empty());
/// ```
pub fn listed(query: &str) -> Vec<Vec<String>> {
    let ranges: Vec<_> = crate::spans::word_ranges(query)
        .into_iter()
        .map(|(_, body)| body)
        .collect();
    let words: Vec<&str> = ranges
        .iter()
        .map(|body| query.get(body.clone()).unwrap_or(""))
        .collect();
    // The text between two words' bodies, without the spaces and quotes around the words.
    let gap = |i: usize| -> &str {
        let (Some(a), Some(b)) = (ranges.get(i), ranges.get(i + 1)) else {
            return "";
        };
        query
            .get(a.end..b.start)
            .unwrap_or("")
            .trim_matches(|c: char| c.is_whitespace() || "\"'`()[]".contains(c))
    };
    let item = |w: &str| crate::cues::value_like(w) && !w.is_empty();
    let mut lists = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i).copied() {
        if !item(w) {
            flush(&mut current, &mut lists);
            i += 1;
            continue;
        }
        if current.is_empty() {
            current.push(w.to_string());
        }
        // The next item: right after a separator, or after a joining word.
        let next = |j: usize| {
            words
                .get(j)
                .copied()
                .filter(|n| item(n) && shape(n) == shape(w))
        };
        let digits = w.chars().any(|c| c.is_ascii_digit());
        let sep = gap(i);
        let joined = match sep {
            "," | ";" | "&" | "+" => next(i + 1).map(|n| (n, i + 1)),
            "" if digits => next(i + 1).map(|n| (n, i + 1)),
            _ => None,
        }
        .or_else(|| {
            let by_word = words
                .get(i + 1)
                .is_some_and(|j| JOINERS.contains(&j.to_lowercase().as_str()));
            let clean = matches!(gap(i + 1), "" | ",");
            (matches!(sep, "" | ",") && by_word && clean)
                .then(|| next(i + 2).map(|n| (n, i + 2)))
                .flatten()
        });
        match joined {
            Some((n, j)) => {
                current.push(n.to_string());
                i = j;
            }
            None => {
                flush(&mut current, &mut lists);
                i += 1;
            }
        }
    }
    flush(&mut current, &mut lists);
    lists
}

/// Ends the list being read: kept when it has two items or more.
fn flush(current: &mut Vec<String>, lists: &mut Vec<Vec<String>>) {
    if current.len() >= 2 {
        lists.push(std::mem::take(current));
    } else {
        current.clear();
    }
}

/// Each array parameter of `args` (for `spec`, grounded) whose written items are all items of
/// one list of `query` ([`listed`]) that holds more of them takes the whole list, in the
/// request's order, typed as the parameter's items are. Returns the parameters changed.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::ToolSpec;
/// use toolwright_local::lists::whole_lists;
/// let spec = ToolSpec::new("cite", "", json!({"type": "object", "properties": {
///     "pmids": {"type": "array", "items": {"type": "string"}},
///     "author_ids": {"type": "array", "items": {"type": "integer"}}}}));
/// let q = "bibtex for pubmed 29961564, 30021884 and 31043734";
/// let mut args = json!({"pmids": ["29961564"]});
/// assert_eq!(whole_lists(&spec, q, &mut args), ["pmids"]);
/// assert_eq!(args, json!({"pmids": ["29961564", "30021884", "31043734"]}));
/// let q = "papers by authors 1741101, 1751762 and 145642373 together";
/// let mut args = json!({"author_ids": [1741101]});
/// assert_eq!(whole_lists(&spec, q, &mut args), ["author_ids"]);
/// assert_eq!(args, json!({"author_ids": [1741101, 1751762, 145642373]}));
/// // An array of identifiers left empty takes the request's one list of them.
/// let mut args = json!({"author_ids": []});
/// assert_eq!(whole_lists(&spec, q, &mut args), ["author_ids"]);
/// assert_eq!(args, json!({"author_ids": [1741101, 1751762, 145642373]}));
/// ```
pub fn whole_lists(spec: &ToolSpec, query: &str, args: &mut Value) -> Vec<String> {
    let mut changed = Vec::new();
    let Some((props, given)) = crate::passes::props_and_args(spec, args) else {
        return changed;
    };
    let lists = listed(query);
    if lists.is_empty() {
        return changed;
    }
    for (k, v) in given.iter_mut() {
        let (Some(schema), Value::Array(items)) = (props.get(k), &*v) else {
            continue;
        };
        let filled = if items.is_empty() {
            empty_ids(k, schema, &lists)
        } else {
            fill(schema, items, &lists)
        };
        if let Some(filled) = filled {
            *v = Value::Array(filled);
            changed.push(k.clone());
        }
    }
    changed
}

/// The whole list that `items` (an array parameter's written items, with `schema`) are part
/// of, as values of the parameter's items, when it holds more than they do and the schema
/// accepts each.
fn fill(schema: &Value, items: &[Value], lists: &[Vec<String>]) -> Option<Vec<Value>> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let written: Vec<String> = items.iter().map(text).collect::<Option<_>>()?;
    if written.is_empty() {
        return None;
    }
    // The one list that holds every written item, with more items than were written.
    let mut holding = lists
        .iter()
        .filter(|l| written.iter().all(|w| l.contains(w)) && l.len() > distinct(&written));
    let list = holding.next()?;
    if holding.next().is_some() {
        return None;
    }
    let item_schema = schema.get("items")?;
    let numeric = matches!(
        item_schema.get("type").and_then(Value::as_str),
        Some("integer" | "number")
    );
    let values: Vec<Value> = list
        .iter()
        .map(|s| {
            if numeric {
                serde_json::from_str::<serde_json::Number>(s)
                    .ok()
                    .map(Value::Number)
            } else {
                Some(Value::String(s.clone()))
            }
        })
        .collect::<Option<_>>()?;
    let offered = item_schema.get("enum").and_then(Value::as_array);
    let accepted = |v: &Value| offered.is_none_or(|o| o.contains(v));
    let max = schema
        .get("maxItems")
        .and_then(Value::as_u64)
        .and_then(|m| usize::try_from(m).ok())
        .unwrap_or(usize::MAX);
    (values.iter().all(accepted) && values.len() <= max).then_some(values)
}

/// An array of identifiers the model left empty (`"author_ids": []`) takes the request's one
/// list of identifiers (words with digits), when the schema accepts each of them.
fn empty_ids(name: &str, schema: &Value, lists: &[Vec<String>]) -> Option<Vec<Value>> {
    let about = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let [list] = lists else {
        return None;
    };
    let ids = list.iter().all(|w| w.chars().any(|c| c.is_ascii_digit()));
    let first = list.first().map(|w| Value::String(w.clone()))?;
    if !crate::cues::holds_identifier(name, about) || !ids {
        return None;
    }
    // What the model wrote is none of them; the list stands in for its first item (as text:
    // `fill` compares texts and types the values as the schema's items are).
    fill(schema, &[first], lists)
}

/// How many different texts `written` holds.
fn distinct(written: &[String]) -> usize {
    let mut seen: Vec<&String> = Vec::new();
    for w in written {
        if !seen.contains(&w) {
            seen.push(w);
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(items: Value) -> ToolSpec {
        ToolSpec::new(
            "t",
            "",
            json!({"type": "object", "properties": {"ids": {"type": "array", "items": items}}}),
        )
    }

    #[test]
    fn lists_are_read_with_every_joiner() {
        assert_eq!(listed("ids 5 6 7"), [["5", "6", "7"]]);
        assert_eq!(
            listed("mail ana@acme.com, bo.li@acme.org or cy@x.io now"),
            [["ana@acme.com", "bo.li@acme.org", "cy@x.io"]]
        );
        assert_eq!(listed("quotes for AAPL & MSFT"), [["AAPL", "MSFT"]]);
        // Differently written words, or a clause after "and", end the list.
        assert!(listed("move PROJ-12 and 4521").is_empty());
        assert!(listed("close issue 12 and then 13 more").is_empty());
        assert_eq!(
            listed("tickets 12, 13 to milestone 4"),
            [["12", "13"]],
            "a word that is no value ends it"
        );
    }

    #[test]
    fn a_list_fills_an_array_only_when_the_schema_takes_all_of_it() {
        let q = "archive tasks 101, 102 and 103";
        // The model repeated its first item.
        let mut args = json!({"ids": ["101", "101"]});
        assert_eq!(
            whole_lists(&spec(json!({"type": "string"})), q, &mut args),
            ["ids"]
        );
        assert_eq!(args, json!({"ids": ["101", "102", "103"]}));
        // An item the grounded schema does not offer: left as written.
        let offered = json!({"type": "string", "enum": ["101", "102"]});
        let mut args = json!({"ids": ["101"]});
        assert!(whole_lists(&spec(offered), q, &mut args).is_empty());
        // Every item already written, or an item from outside the list: left as written.
        let mut args = json!({"ids": ["101", "103", "102"]});
        assert!(whole_lists(&spec(json!({"type": "string"})), q, &mut args).is_empty());
        let mut args = json!({"ids": ["101", "7"]});
        assert!(whole_lists(&spec(json!({"type": "string"})), q, &mut args).is_empty());
        // More items than the schema allows.
        let capped = ToolSpec::new(
            "t",
            "",
            json!({"type": "object", "properties": {"ids": {"type": "array", "maxItems": 2,
                "items": {"type": "string"}}}}),
        );
        let mut args = json!({"ids": ["101"]});
        assert!(whole_lists(&capped, q, &mut args).is_empty());
        // A number list for string items that are not numbers: no list of that kind.
        let mut args = json!({"ids": ["archive"]});
        assert!(whole_lists(&spec(json!({"type": "string"})), q, &mut args).is_empty());
        // Left empty: an array of identifiers takes the one list; another array does not.
        let mut args = json!({"ids": []});
        assert_eq!(
            whole_lists(&spec(json!({"type": "string"})), q, &mut args),
            ["ids"]
        );
        let tags = ToolSpec::new(
            "t",
            "",
            json!({"type": "object", "properties": {"tags": {"type": "array",
                "items": {"type": "string"}}}}),
        );
        let mut args = json!({"tags": []});
        assert!(whole_lists(&tags, q, &mut args).is_empty());
    }
}
