//! Narrowing a tool's schema to what a query mentions, for a small local model.
//!
//! A 135M-parameter model fills arguments well when there is little to choose from, and badly
//! when optional parameters and long enums invite it to invent values (`"city": "celsius"`,
//! `"from_currency": "USD"` for "250 GBP"). Before the grammar is built, [`narrow_for_query`]:
//!
//! - drops optional parameters the query does not mention (by name, by one of their allowed
//!   values, or by a verb that renames what they hold: "rename" for `name`, "retitle" for
//!   `title`; or by naming a value of its kind, a colour for a `color`, a language for a
//!   `language`, a country for a `country`: [`crate::kinds`]; or by describing a glob
//!   pattern for a pattern parameter, "keys starting with user:": [`crate::globs`]), so
//!   the tool's defaults apply; a name is mentioned when its distinctive words are
//!   (`atm_pressure` by "atmospheric pressure", `return_type` by "return", a one-letter typo
//!   in a long word allowed; generic words such as `type`, `unit` or `value` alone are not),
//!   except optional number parameters when the query states a number that fits them and no
//!   parameter that stays takes numbers ("the last 20 lines" keeps `head` and `tail`);
//! - keeps an optional boolean the query states and gives it the value it states: every
//!   distinctive word of its name (those after its last preposition, `initialize_with_readme` →
//!   `readme`; without openers such as `is`, `has`, `auto`) is a query word, an inflection
//!   aside ("initialized with a README" → `autoInit: true`, "including an image" →
//!   `includeImage: true`), and it is false when "not", "no", "without", "n't" or a verb of
//!   stopping ("stop", "skip", "omit", "exclude") stands at most three words before ("without
//!   a README", "not as a draft", "stop monitoring"); a flag that removes something
//!   (`removeFromClient`) is stated only when a verb of deleting stands by its word ("remove
//!   it from the client", not "leave it in the client");
//! - restricts enum parameters to the values the query mentions, when it mentions at least as
//!   many values as there are parameters sharing that enum (`from`/`to` currency: "GBP" and
//!   "JPY" → both restricted to {GBP, JPY}; the model still chooses the order); a value of
//!   several words is mentioned when its words stand near each other in any order, singular or
//!   plural ("any upgrades or downgrades" → `upgrades_downgrades`); a value written as it is
//!   beats one whose words are only near, a word of the tool's own name gives way, and a value
//!   the description glosses in the query's words counts when none is named (see
//!   `mentioned_values`); a plain string whose documentation lists its only choices is read as
//!   an enum of them ([`crate::listed`]);
//! - keeps (and makes required) an optional parameter named as a path, URL, selector, e-mail
//!   or date when the query writes more words in that form than the staying parameters take;
//! - keeps (and makes required) the parameter that takes a cap the query states ("the first
//!   3000 characters" → `max_length`, "the last 5" → `limit`: [`crate::caps`]), or a bound on
//!   a value ("under 60" → `maxPrice`: [`crate::caps::bounded`]);
//! - keeps (and makes required) both sides of a range (`updated_from` and `updated_to`) when
//!   one side stays and the query writes two ISO dates ("updated between 2025-06-01 and
//!   2025-06-30"); string grounding then gives each side its date.
//!
//! [`ground_numbers`] goes one step further for numeric parameters: when the query states
//! numbers, a number or integer parameter may only take one of them (`b = -3` → `-3`, `1e-9`),
//! so the model chooses which number goes where instead of writing digits of its own; a
//! parameter the query names takes the number written next to its name ("a charge of 0.01"),
//! and the others the numbers no named parameter took; an amount "in cents" takes them a
//! hundredfold; a cap goes to the parameter that takes it.
//!
//! The narrowed schema only admits values the real schema admits; the runtime still validates
//! every call against the tool's advertised schema.

use serde_json::{Map, Value, json};
use toolwright_core::ToolSpec;

use crate::cues::name_words;

/// A parameter's description (empty when it has none).
pub(crate) fn described(p: &Value) -> &str {
    p.get("description").and_then(Value::as_str).unwrap_or("")
}

/// Whether a parameter takes any number or integer (no `enum`), alone or beside `null`.
pub(crate) fn free_number(p: &Value) -> bool {
    let unnulled = crate::spans::without_null(p);
    let p = unnulled.as_ref().unwrap_or(p);
    p.get("enum").is_none()
        && matches!(
            p.get("type").and_then(Value::as_str),
            Some("number" | "integer")
        )
}

/// Keeps (and makes required) an optional parameter named as written in a form
/// ([`crate::cues::written_as_described`]: a path, a URL, a selector, an e-mail address, a
/// date) when the query
/// writes more words in that form than the parameters that stay can take: "grab
/// https://example.com/pricing as markdown" sets the optional `url`. A date the request
/// marks as a range's start or end ([`crate::cues::date_side`]: "since 2026-05-01") keeps that
/// side (`from_date`, not `to_date`).
fn keep_written(
    props: &Map<String, Value>,
    query: &str,
    stays: &mut [bool],
    report: &mut Narrowing,
) {
    let form = |name: &str| {
        let d = props
            .get(name)
            .map(described_with_format)
            .unwrap_or_default();
        crate::cues::written_as_described(name, &d)
    };
    // One date after "since" goes to a range's start, after "until" to its end: those come first.
    let side = crate::cues::date_side(query);
    let mut order: Vec<(usize, &String)> = props.keys().enumerate().collect();
    order.sort_by_key(|(_, name)| side.is_some_and(|s| !crate::cues::on_side(name, s)));
    for (i, name) in order {
        let Some(f) = form(name).filter(|_| !stays.get(i).copied().unwrap_or(true)) else {
            continue;
        };
        let taken = props
            .keys()
            .zip(stays.iter())
            .filter(|(n, s)| **s && form(n) == Some(f))
            .count();
        if f.count_in(query) > taken {
            if let Some(s) = stays.get_mut(i) {
                *s = true;
            }
            report.promoted.push(name.clone());
        }
    }
}

/// A date the request marks as a range's start or end ([`crate::cues::date_side`]: "created
/// since 2026-06-01") is for that side: an optional date parameter of the other side that stays
/// only for its name's words ("created … to" in "going to Japan were created") gives its place
/// to its pair of the marked side (`created_at_to` → `created_at_from`).
fn keep_marked_side(
    props: &Map<String, Value>,
    query: &str,
    required: &[&str],
    stays: &mut [bool],
) {
    let Some(side) = crate::cues::date_side(query) else {
        return;
    };
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    let at = |k: &str| props.keys().position(|n| n == k);
    for (a, b) in crate::cues::name_pairs(&names, crate::cues::RANGE_ENDS) {
        let (marked, other) = if crate::cues::on_side(&a, side) {
            (a, b)
        } else {
            continue;
        };
        let (Some(i), Some(j)) = (at(&marked), at(&other)) else {
            continue;
        };
        let dated = |k: &str| props.get(k).is_some_and(|p| takes_date(k, p));
        let free = stays.get(j) == Some(&true) && !required.contains(&other.as_str());
        if free && stays.get(i) == Some(&false) && dated(&marked) && dated(&other) {
            if let Some(s) = stays.get_mut(j) {
                *s = false;
            }
            if let Some(s) = stays.get_mut(i) {
                *s = true;
            }
        }
    }
}

/// The last word of the name of a text parameter a quoted text is the value of, besides those
/// that match part of a name ([`matches_part`]).
const QUOTE_TAKERS: [&str; 4] = ["title", "name", "keyword", "keywords"];

/// Whether parameter `name` holds a text a quote may be ([`QUOTE_TAKERS`], [`BODY_TAKERS`], a
/// `description`, `summary`, `caption`, `comment` or `note`).
pub(crate) fn takes_text(name: &str) -> bool {
    name_words(name).last().is_some_and(|w| {
        QUOTE_TAKERS.contains(&w.as_str())
            || BODY_TAKERS.contains(&w.as_str())
            || matches!(
                w.as_str(),
                "description" | "summary" | "caption" | "comment" | "note"
            )
    })
}

/// The last word of the name of a text parameter that holds a message's or a document's body:
/// a quoted text may be it as well as a title, so neither takes the quote on its own.
const BODY_TAKERS: [&str; 4] = ["text", "content", "body", "message"];

/// The last words of the names of text parameters that match part of a thing's name or text
/// (`group_name_contains`, `title_like`).
const MATCHERS: [&str; 5] = ["contains", "containing", "like", "substring", "matching"];

/// Whether parameter `name` matches part of a thing's name or text ([`MATCHERS`]:
/// `group_name_contains`): it takes a quoted text whole.
pub(crate) fn matches_part(name: &str) -> bool {
    name_words(name)
        .last()
        .is_some_and(|w| MATCHERS.contains(&w.as_str()))
}

/// Keeps (and makes required) the one optional search query or title a request's quoted text
/// is for, when no parameter that stays takes free text: "find my Notion page called 'Q3
/// roadmap'" keeps `API-post-search`'s `query`, "open the Confluence page 'Release Process'"
/// `confluence_get_page`'s `title`, "templates with 'MySQL' in the name"
/// `template_name_contains` ([`matches_part`]). Of two such parameters, the one whose own
/// words the request says outside the quote; else neither.
fn keep_for_quote(
    props: &Map<String, Value>,
    query: &str,
    stays: &mut [bool],
    report: &mut Narrowing,
) {
    if toolwright_catalog::values::quoted_spans(query).is_empty() {
        return;
    }
    let free_text = |p: &Value| {
        let unnulled = crate::spans::without_null(p);
        let p = unnulled.as_ref().unwrap_or(p);
        p.get("type").and_then(Value::as_str) == Some("string")
            && !["enum", "format", "pattern", "const"]
                .iter()
                .any(|k| p.get(*k).is_some())
    };
    // A text that stays for a value its documentation lists and the request names ("in
    // production" for an `environment` of e.g. 'production', 'staging') is a choice, not the
    // free text the quote is for.
    let said = words(query);
    let chosen = |p: &Value| {
        crate::listed::listed_values(described(p))
            .or_else(|| crate::listed::example_values(described(p)))
            .is_some_and(|vals| vals.iter().any(|v| said.contains(&v.to_lowercase())))
    };
    // Nor does an identifier, or a text written in a form (a URL, a path, an e-mail address,
    // a date) take a quoted phrase: "save https://… as 'Rust 2.0 announcement'" leaves the
    // quote to `title`, "rename pin 1122334455 to 'Best rye bread'" too.
    // Only with one quote: of two ("tag it 'prod' and 'rotated-2026'") neither is a title.
    let one_quote = toolwright_catalog::values::quoted_spans(query).len() == 1;
    let written = |k: &str, p: &Value| {
        crate::cues::only_identifier(k, described(p))
            || crate::cues::written_as_described(k, described(p)).is_some()
    };
    let formed = |k: &str, p: &Value| one_quote && written(k, p);
    // A list of texts that stays takes a quote too ("remove the 'old recovery code' field" →
    // `removeFields`).
    let texts = |p: &Value| {
        p.get("type").and_then(Value::as_str) == Some("array")
            && p.get("items").is_some_and(free_text)
    };
    let taken = props.iter().zip(stays.iter()).any(|((k, p), s)| {
        *s && ((free_text(p) && !chosen(p) && !formed(k, p))
            || (one_quote && texts(p) && !written(k, p)))
    });
    if taken {
        return;
    }
    if let Some(i) = quote_introduced(props, query, stays, &free_text) {
        promote(i, props, stays, report);
        return;
    }
    let takes_quote = |name: &str, p: &Value| {
        free_text(p)
            && (crate::topic::takes_topic(name, described(p)).is_some()
                || matches_part(name)
                || name_words(name).last().is_some_and(|w| {
                    QUOTE_TAKERS.contains(&w.as_str()) || BODY_TAKERS.contains(&w.as_str())
                }))
    };
    let mut open: Vec<usize> = props
        .iter()
        .enumerate()
        .filter(|(i, (k, p))| !stays.get(*i).copied().unwrap_or(true) && takes_quote(k, p))
        .map(|(i, _)| i)
        .collect();
    // Of several, the one whose own words the request says ("items with key containing
    // 'vfs.fs.size'": `item_key_contains`, not `item_name_contains`).
    if open.len() > 1 {
        let unquoted = words(&toolwright_catalog::values::without_quoted(query));
        let own = |i: &usize| -> Vec<String> {
            let all: Vec<Vec<String>> = open
                .iter()
                .filter_map(|j| props.keys().nth(*j).map(|k| name_words(k)))
                .collect();
            props.keys().nth(*i).map_or_else(Vec::new, |k| {
                name_words(k)
                    .into_iter()
                    .filter(|w| !all.iter().all(|ws| ws.contains(w)))
                    .collect()
            })
        };
        let said: Vec<usize> = open
            .iter()
            .filter(|i| {
                own(i)
                    .iter()
                    .any(|w| unquoted.iter().any(|u| same_word(u, w)))
            })
            .copied()
            .collect();
        open = said;
    }
    if let [i] = open.as_slice() {
        promote(*i, props, stays, report);
    }
}

/// Keeps the `i`-th parameter of `props` and reports it made required.
fn promote(i: usize, props: &Map<String, Value>, stays: &mut [bool], report: &mut Narrowing) {
    if let (Some(s), Some(name)) = (stays.get_mut(i), props.keys().nth(i)) {
        *s = true;
        if !report.promoted.contains(name) {
            report.promoted.push(name.clone());
        }
    }
}

/// Keeps (and makes required) an optional parameter named as a thing's maker (`firm`,
/// `author`, `manufacturer`) when the request names a maker after `by`
/// ([`crate::cues::made_by`]: "Class I drug recalls by Pfizer"), or one named for the tool's
/// thing when the request says what its things are about ([`crate::cues::subject_of`]:
/// "recalls of valsartan" for `drug_name`).
fn keep_maker(
    props: &Map<String, Value>,
    spec: &ToolSpec,
    query: &str,
    stays: &mut [bool],
    report: &mut Narrowing,
) {
    // The tool's name only: a description quotes makers as examples ("Pfizer").
    let own = |w: &str| crate::cues::tool_uses(&spec.name, "", w);
    let siblings: Vec<&str> = props.keys().map(String::as_str).collect();
    for (i, (name, p)) in props.iter().enumerate() {
        if stays.get(i).copied().unwrap_or(true) || p.get("enum").is_some() || boolean_param(p) {
            continue;
        }
        let own_text = |w: &str| crate::cues::tool_uses(&spec.name, &spec.description, w);
        let about = p.get("default").is_some()
            && crate::cues::subject_of(name, &spec.name, &siblings, query, own_text).is_some();
        if about || crate::cues::made_by(name, query, own).is_some() {
            promote(i, props, stays, report);
        }
    }
}

/// Keeps (and makes required) a tool's two parts of a person's name
/// ([`crate::cues::name_part`]: one `first_name`, one `last_name`) when the request writes a
/// person's name ([`crate::cues::person_names`]): "register private customer Anna Nowak as a
/// client" names `first_name` and `last_name` by their value, as an e-mail address names
/// `email`. String grounding gives each its part.
fn keep_person_name(
    props: &Map<String, Value>,
    spec: &ToolSpec,
    query: &str,
    stays: &mut [bool],
    report: &mut Narrowing,
) {
    use crate::cues::{NamePart, name_part};
    let of = |part: NamePart| -> Vec<usize> {
        props
            .keys()
            .enumerate()
            .filter(|(_, k)| name_part(k) == Some(part))
            .map(|(i, _)| i)
            .collect()
    };
    let (firsts, lasts) = (of(NamePart::First), of(NamePart::Last));
    let ([first], [last]) = (firsts.as_slice(), lasts.as_slice()) else {
        return;
    };
    let own = |w: &str| crate::cues::tool_uses(&spec.name, &spec.description, w);
    if crate::cues::person_names(query, own).is_empty() {
        return;
    }
    for i in [*first, *last] {
        if stays.get(i) == Some(&false) {
            promote(i, props, stays, report);
        }
    }
}

/// The one optional free text a quoted text is introduced for: the words right before the
/// quote are the first words of its documentation or its name ("with alt text 'Storks on a
/// nest'" for a `description` documented "Alt text / accessibility description", "with CW
/// 'election talk'" does not say `spoiler_text`).
fn quote_introduced(
    props: &Map<String, Value>,
    query: &str,
    stays: &[bool],
    free_text: &impl Fn(&Value) -> bool,
) -> Option<usize> {
    let before: Vec<Vec<String>> = toolwright_catalog::values::quoted_spans(query)
        .into_iter()
        .map(|r| {
            let head = query.get(..r.start).unwrap_or("");
            let ws = words(head);
            ws.get(ws.len().saturating_sub(3)..)
                .unwrap_or_default()
                .to_vec()
        })
        .collect();
    let introduced = |k: &str, p: &Value| {
        let doc = words(described(p));
        let opening: Vec<&String> = doc
            .iter()
            .filter(|w| !crate::cues::is_function_word(w))
            .take(2)
            .collect();
        let own: Vec<String> = name_words(k);
        before.iter().any(|b| {
            let said = |w: &String| b.iter().any(|x| same_word(x, w));
            (opening.len() == 2 && opening.iter().all(|w| said(w)))
                || (!own.is_empty() && own.iter().all(said) && !own.iter().all(|w| w.len() < 3))
        })
    };
    let open: Vec<usize> = props
        .iter()
        .enumerate()
        .filter(|(i, (k, p))| {
            !stays.get(*i).copied().unwrap_or(true) && free_text(p) && introduced(k, p)
        })
        .map(|(i, _)| i)
        .collect();
    match open.as_slice() {
        [i] => Some(*i),
        _ => None,
    }
}

/// A range's two sides stay together: when the request writes two ISO dates ("updated between
/// 2025-06-01 and 2025-06-30") and one side of a pair of free parameters stays
/// ([`crate::cues::RANGE_ENDS`]: `updated_from` and `updated_to`), the other stays too, and both
/// are made required; string grounding gives each its date
/// ([`crate::spans::ground_strings`]). So do they when the request writes no ISO date but
/// names one calendar period ([`crate::periods`]: "leave taken in July 2026"), and then also
/// when neither side stays, if theirs is the only pair whose two sides take dates
/// ([`crate::cues::written_as_described`]).
fn keep_range_ends(
    props: &Map<String, Value>,
    query: &str,
    stays: &mut [bool],
    report: &mut Narrowing,
) {
    let dates = crate::cues::iso_dates(query).len();
    let period = dates == 0 && crate::periods::named(query).len() == 1;
    if dates != 2 && !period {
        return;
    }
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    let at = |k: &str| props.keys().position(|n| n == k);
    let free = |k: &str| {
        props
            .get(k)
            .is_some_and(|p| p.get("enum").is_none() && !boolean_param(p))
    };
    let dated = |k: &str| props.get(k).is_some_and(|p| takes_date(k, p));
    let pairs = crate::cues::name_pairs(&names, crate::cues::RANGE_ENDS);
    let dated_pairs = pairs.iter().filter(|(a, b)| dated(a) && dated(b)).count();
    for (a, b) in pairs.iter() {
        let (Some(i), Some(j)) = (at(a), at(b)) else {
            continue;
        };
        let (sa, sb) = (stays.get(i).copied(), stays.get(j).copied());
        let neither_but_dated = period
            && sa == Some(false)
            && sb == Some(false)
            && dated_pairs == 1
            && dated(a)
            && dated(b);
        if !free(a) || !free(b) || (sa == sb && !neither_but_dated) {
            continue;
        }
        for (k, n) in [(i, a), (j, b)] {
            if let Some(s) = stays.get_mut(k) {
                *s = true;
            }
            if !report.promoted.contains(n) {
                report.promoted.push(n.clone());
            }
        }
    }
}

/// Keeps (and makes required) an optional parameter the request gives a value without writing
/// its whole name: an identifier whose leading letters name it ("invoices of cus_N4k2" for
/// `customer`, [`crate::cues::prefix_names`]), or a value-like word or quoted text that one of
/// its cue words names ([`crate::cues::cue_words`]: the head of its name, "under group
/// batch-v2" for `apiGroup`; for a bare `name` or `ref`, its description's first words, "the
/// prod-eu-west context" for a `name` described as "Name of the context"), unless a parameter
/// that stays is named by it too ("a branch named feature/oauth" keeps the required `branch`,
/// not `from_branch`), or the value is a path, URL or e-mail address (those go by their form,
/// [`keep_written`]); or a git reference the request names for it and no staying parameter
/// is cued to ([`crate::refs`]: "off of develop" for `from_branch`). Enum and boolean
/// parameters have their own rules.
fn keep_cued(props: &Map<String, Value>, query: &str, stays: &mut [bool], report: &mut Narrowing) {
    let ids: Vec<&str> = crate::spans::word_ranges(query)
        .into_iter()
        .filter_map(|(_, body)| query.get(body))
        .filter(|w| w.contains(['_', '-']) || w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let named = |name: &str, p: &Value| {
        crate::cues::strong_values_named_by(&crate::cues::cue_words(name, described(p)), query)
    };
    let claimed: Vec<String> = props
        .iter()
        .zip(stays.iter())
        .filter(|(_, s)| **s)
        .flat_map(|((n, p), _)| named(n, p))
        .collect();
    let formed =
        |v: &str| v.contains("://") || crate::cues::path_like(v) || crate::cues::email_like(v);
    let siblings: Vec<&str> = props.keys().map(String::as_str).collect();
    for (i, (name, p)) in props.iter().enumerate() {
        if stays.get(i).copied().unwrap_or(true) || p.get("enum").is_some() || boolean_param(p) {
            continue;
        }
        let typed_id = crate::cues::holds_identifier(name, described(p))
            && ids.iter().any(|w| crate::cues::prefix_names(w, name));
        let cued = named(name, p)
            .iter()
            .any(|v| !claimed.contains(v) && !formed(v));
        // A git reference the request names ("on the develop branch", "off of develop").
        let referred = crate::refs::refs_for(name, described(p), &siblings, query)
            .iter()
            .any(|v| !claimed.contains(v));
        if typed_id || cued || referred {
            if let Some(s) = stays.get_mut(i) {
                *s = true;
            }
            report.promoted.push(name.clone());
        }
    }
}

/// The values parameter `name` may take: its `enum` (or its `anyOf` consts), or, for a free
/// string, the values its documentation lists as the only choices ([`crate::listed`]).
fn choices(
    name: &str,
    p: &Value,
    tool_description: &str,
    params: &Map<String, Value>,
) -> Option<Vec<String>> {
    enum_values(p).or_else(|| {
        let o = p.as_object()?;
        let string = o.get("type").and_then(Value::as_str) == Some("string")
            || o.get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|alts| {
                    alts.iter().all(|a| {
                        matches!(
                            a.get("type").and_then(Value::as_str),
                            Some("string" | "null")
                        ) && a.get("enum").is_none()
                            && a.get("const").is_none()
                    })
                });
        let free = !["pattern", "format", "const", "enum"]
            .iter()
            .any(|k| o.contains_key(*k));
        if !(string && free) {
            return None;
        }
        let text = crate::listed::documentation(name, p, tool_description);
        // A filter's examples ("status (e.g., 'active', 'resolved')") are its values where the
        // request names one: "show resolved items" filters by status. Not for free texts, whose
        // examples show a shape ("query (e.g. 'python')").
        let examples = || {
            let free_text = crate::topic::takes_topic(name, text).is_some()
                || name_words(name)
                    .last()
                    .is_some_and(|w| FREE_TEXT_NAMES.contains(&w.as_str()));
            (!free_text)
                .then(|| crate::listed::example_values(text))
                .flatten()
        };
        // "You must provide an `area_code` or a `phone_number`" lists parameters, not values;
        // the parameter's own name is one of its values beside others that name no parameter
        // (`cleared`: "cleared", "uncleared", or "reconciled").
        let listed = crate::listed::listed_values(text).or_else(examples)?;
        let names_one = |v: &String| params.keys().any(|k| same_name(k, v));
        let others = listed.iter().any(|v| !names_one(v));
        let values: Vec<String> = listed
            .iter()
            .filter(|v| !names_one(v) || (others && same_name(name, v)))
            .cloned()
            .collect();
        (!values.is_empty()).then_some(values)
    })
}

/// Last name words of parameters that take free text or a name, whose examples show a shape
/// rather than values to filter by.
const FREE_TEXT_NAMES: &[&str] = &[
    "name",
    "title",
    "text",
    "query",
    "q",
    "message",
    "content",
    "body",
    "description",
    "comment",
    "note",
    "summary",
    "subject",
    "label",
    "prompt",
    "keyword",
    "keywords",
    "term",
    "url",
    "path",
    "id",
    "email",
    "address",
    "code",
];

/// Whether two names are one, written apart from case and separators (`area_code` and
/// `AreaCode`).
fn same_name(a: &str, b: &str) -> bool {
    let flat = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let (a, b) = (flat(a), flat(b));
    !a.is_empty() && a == b
}

/// Lowercase words of `text` (letters and digits).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether the query mentions `value`: a query word equal to it, or starting with it (plurals),
/// for values of 2 characters or more.
fn mentions(query_words: &[String], value: &str) -> bool {
    let v = value.to_lowercase();
    if v.chars().count() < 2 {
        return false;
    }
    let parts = words(&v);
    match parts.as_slice() {
        [] => false,
        [single] => query_words.iter().any(|w| {
            w == single || (w.starts_with(single.as_str()) && w.len() <= single.len() + 2)
        }),
        many => query_words
            .windows(many.len())
            .any(|win| win.iter().zip(many).all(|(a, b)| a == b)),
    }
}

/// Whether the query mentions the allowed value `value`: as [`mentions`] does, or, for a value
/// of several words (split at `_`, `-`, camel case: `upgrades_downgrades`, `startupWarnings`),
/// when each of its words of three letters or more, in the singular or the plural, stands
/// within a few words of the others in any order ("any recent upgrades or downgrades", "the
/// stocks shorted the most" → `most_shorted_stocks`); a one-word value also in the singular
/// ("split" → `splits`); a duration code when the request names a span of that length ("the
/// past 6 months" → `6mo`, "one year" → `1y`, "hourly" → `1h` and `60m`).
fn mentions_value(query_words: &[String], value: &str) -> bool {
    if mentions(query_words, value) {
        return true;
    }
    if let Some(d) = duration_code(value) {
        return durations_named(query_words).iter().any(|(n, _)| *n == d);
    }
    // A path of values (`python/django`) is named by its last step, the specific one.
    if let Some((_, last)) = value.rsplit_once('/')
        && !last.is_empty()
        && mentions_value(query_words, last)
    {
        return true;
    }
    let parts: Vec<String> = name_words(value)
        .into_iter()
        .filter(|w| w.chars().all(char::is_alphabetic))
        .collect();
    match parts.as_slice() {
        [] => false,
        [single] => single.len() >= 4 && query_words.iter().any(|q| same_word(q, single)),
        many if many.iter().all(|w| w.len() >= 3) && !query_words.is_empty() => {
            let span = many.len() + 2;
            query_words
                .windows(span.min(query_words.len()))
                .any(|win| many.iter().all(|v| win.iter().any(|q| same_word(q, v))))
        }
        _ => false,
    }
}

/// Where the request's mention of `value` ends: the first query word by which
/// [`mentions_value`] holds (the request's length when it never does).
fn first_mention(query_words: &[String], value: &str) -> usize {
    (0..query_words.len())
        .find(|&i| mentions_value(query_words.get(..=i).unwrap_or_default(), value))
        .unwrap_or(query_words.len())
}

/// Seconds in each unit a duration code ends with (`30m`, `1h`, `1wk`, `6mo`, `1y`).
const CODE_UNITS: [(&str, u64); 12] = [
    ("s", 1),
    ("sec", 1),
    ("m", 60),
    ("min", 60),
    ("h", 3_600),
    ("hr", 3_600),
    ("d", 86_400),
    ("w", 604_800),
    ("wk", 604_800),
    ("mo", 2_592_000),
    ("y", 31_536_000),
    ("yr", 31_536_000),
];

/// Words of a request that name a unit of time, with its seconds.
const UNIT_WORDS: [(&str, u64); 7] = [
    ("second", 1),
    ("minute", 60),
    ("hour", 3_600),
    ("day", 86_400),
    ("week", 604_800),
    ("month", 2_592_000),
    ("year", 31_536_000),
];

/// Adverbs that name one unit of time ("hourly prices").
const UNIT_ADVERBS: [(&str, u64); 6] = [
    ("hourly", 3_600),
    ("daily", 86_400),
    ("weekly", 604_800),
    ("monthly", 2_592_000),
    ("yearly", 31_536_000),
    ("annually", 31_536_000),
];

/// Words before a unit that count one of it ("the past month", "a year").
const ONE_OF: [&str; 7] = ["a", "an", "one", "past", "last", "per", "every"];

/// Number words before a unit ("two weeks").
const NUMBER_WORDS: [&str; 12] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
];

/// The length in seconds of a duration code: a number and a unit ([`CODE_UNITS`]: `6mo`,
/// `60m`, `1wk`).
fn duration_code(value: &str) -> Option<u64> {
    let digits = value.len() - value.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (n, unit) = value.split_at(digits);
    let n: u64 = n.parse().ok()?;
    let (_, secs) = CODE_UNITS.iter().find(|(u, _)| *u == unit)?;
    n.checked_mul(*secs)
}

/// The lengths in seconds of the spans of time the request names: a number (digits or a word)
/// and a unit ("6 months", "two weeks"), one unit ("the past month", "a year"), or a unit's
/// adverb ("hourly"), each with whether an adverb named it (a frequency rather than a span).
fn durations_named(query_words: &[String]) -> Vec<(u64, bool)> {
    let mut out = Vec::new();
    for (i, w) in query_words.iter().enumerate() {
        if let Some((_, secs)) = UNIT_ADVERBS.iter().find(|(a, _)| a == w) {
            out.push((*secs, true));
            continue;
        }
        let unit = w.strip_suffix('s').unwrap_or(w);
        let Some((_, secs)) = UNIT_WORDS.iter().find(|(u, _)| *u == unit) else {
            continue;
        };
        let before = i.checked_sub(1).and_then(|k| query_words.get(k));
        let n = before.and_then(|b| {
            b.parse::<u64>().ok().or_else(|| {
                NUMBER_WORDS
                    .iter()
                    .position(|n| n == b)
                    .and_then(|p| u64::try_from(p + 1).ok())
                    .or_else(|| ONE_OF.contains(&b.as_str()).then_some(1))
            })
        });
        if let Some(d) = n.and_then(|n| n.checked_mul(*secs)) {
            out.push((d, false));
        }
    }
    out
}

/// The allowed values `vals` of one parameter that the query names ([`mentions_value`]), the
/// closest reading first:
/// - values written as they are ("the response body" → `response-body`, not `request-body`,
///   whose words are only near each other) win over values whose words are merely near, when
///   there are as many as the `want` parameters sharing the values;
/// - a value that is a word of the tool's own name gives way to another ("squash-merge" on
///   `merge_pull_request` → `squash`, not `merge`);
/// - a duration code a span names ("the past 6 months" → `6mo`) beats one a frequency names
///   ("daily" → `1d`);
/// - when no value is named, a value the parameter's description glosses in words the query
///   uses: "Sort by 'relevance' (default) or 'date' (newest first)" and "newest first" →
///   `date`; or one the tool's description glosses in a list ("- day_gainers: Biggest gainers
///   today", [`list_glosses`]); the value whose gloss shares the most telling words with the
///   query (not filler, not a word of the tool's name, in no other value's gloss), only when
///   no other value's gloss shares as many.
fn mentioned_values(
    query_words: &[String],
    vals: &[String],
    description: &str,
    tool: &str,
    tool_description: &str,
    want: usize,
) -> (Vec<String>, bool) {
    let loose: Vec<&String> = vals
        .iter()
        .filter(|v| mentions_value(query_words, v))
        .collect();
    let exact: Vec<&String> = loose
        .iter()
        .copied()
        .filter(|v| mentions(query_words, v))
        .collect();
    // Values written as they are win, unless fewer than the parameters sharing these values.
    let mut named = if exact.len() < want.max(1) {
        loose
    } else {
        exact
    };
    let tool_words = name_words(tool);
    let apart: Vec<&String> = named
        .iter()
        .copied()
        .filter(|v| !name_words(v).iter().all(|w| tool_words.contains(w)))
        .collect();
    if !apart.is_empty() {
        named = apart;
    }
    // A span ("the past 6 months") beats a frequency ("daily") among duration codes.
    let spans: Vec<u64> = durations_named(query_words)
        .into_iter()
        .filter(|(_, adverb)| !adverb)
        .map(|(d, _)| d)
        .collect();
    let by_span = |v: &String| duration_code(v).is_some_and(|d| spans.contains(&d));
    if named.iter().any(|v| by_span(v)) {
        named.retain(|v| duration_code(v).is_none() || by_span(v));
    }
    if !named.is_empty() {
        return (named.into_iter().cloned().collect(), false);
    }
    let mut glossed = glosses(description, vals);
    for (v, g) in list_glosses(tool_description, vals) {
        if !glossed.iter().any(|(w, _)| *w == v) {
            glossed.push((v, g));
        }
    }
    // The words that tell a gloss from the others: four letters or more, no filler, not a word
    // of the tool's name, in no other value's gloss ("today" glosses every screen of stocks).
    let telling: Vec<(String, Vec<String>)> = glossed
        .iter()
        .map(|(v, gloss)| {
            let mut gw: Vec<String> = words(gloss)
                .into_iter()
                .filter(|g| g.len() >= 4 && !GLOSS_FILLER.contains(&g.as_str()))
                .filter(|g| !tool_words.iter().any(|t| same_word(t, g)))
                .collect();
            gw.sort();
            gw.dedup();
            (v.clone(), gw)
        })
        .collect();
    let shared = |v: &str, g: &str| {
        telling
            .iter()
            .any(|(w, others)| w != v && others.iter().any(|o| same_word(o, g)))
    };
    // How many telling words of each gloss the query uses; the one gloss met most wins.
    let met: Vec<(String, usize)> = telling
        .iter()
        .map(|(v, gw)| {
            let n = gw
                .iter()
                .filter(|g| !shared(v, g) && query_words.iter().any(|q| same_word(q, g)))
                .count();
            (v.clone(), n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    let best = met.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let top: Vec<String> = met
        .into_iter()
        .filter(|(_, n)| *n == best)
        .map(|(v, _)| v)
        .collect();
    if top.len() == 1 {
        (top, true)
    } else {
        (Vec::new(), false)
    }
}

/// Words a value's gloss uses that say nothing of what the value means.
const GLOSS_FILLER: [&str; 14] = [
    "default", "defaults", "only", "with", "from", "that", "this", "will", "when", "used", "uses",
    "returns", "return", "value",
];

/// The same word, or (3 letters or more) one an inflection away: a plural, a trailing "s" or
/// "es", "y" as "ies" ("company", `companies`); or one with the same stem of five letters or more ([`stems`]: "institutions" and
/// `institutional`, "prorate" and `proration`).
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let ies = |y: &str, ies: &str| {
        y.len() >= 3
            && y.strip_suffix('y')
                .is_some_and(|stem| ies.strip_suffix("ies") == Some(stem))
    };
    // Only an inflection's or a derivation's ending ("cite" and `citers`, "hour" and
    // `hourly`): "app" is no form of `apple`.
    let inflected = long.strip_prefix(short).is_some_and(|end| {
        matches!(
            end,
            "s" | "es" | "d" | "ed" | "r" | "rs" | "er" | "ers" | "ly"
        )
    });
    a == b || (short.len() >= 3 && inflected) || ies(a, b) || ies(b, a) || same_stem(a, b)
}

/// Endings [`stems`] takes off: inflections and the commonest derivations.
const ENDINGS: [&str; 15] = [
    "ations", "ation", "ions", "ion", "ings", "ing", "ers", "er", "als", "al", "ly", "ed", "es",
    "s", "e",
];

/// `word` without one or two of [`ENDINGS`] (each only while four letters or more stay), and
/// `word` itself: "institutional" → "institution", "institut", …; "proration" → "prorat", ….
fn stems(word: &str) -> Vec<&str> {
    fn strip(w: &str) -> Vec<&str> {
        ENDINGS
            .iter()
            .filter_map(|e| w.strip_suffix(e).filter(|s| s.len() >= 4))
            .collect()
    }
    let mut out = vec![word];
    for once in strip(word) {
        out.push(once);
        out.extend(strip(once));
    }
    out
}

/// Whether `a` and `b` share a stem of five letters or more ([`stems`]).
fn same_stem(a: &str, b: &str) -> bool {
    let theirs = stems(b);
    stems(a).iter().any(|s| s.len() >= 5 && theirs.contains(s))
}

/// What a description says of each of `vals` it quotes ('v', "v" or `v`): the bracketed text
/// right after the quote ("'date' (newest first)"), or the clause after a dash or a colon
/// ("`replace` - overwrite the note"), up to the next quote, `;` or `.`.
fn glosses(description: &str, vals: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for v in vals {
        for q in ['\'', '"', '`'] {
            let quoted = format!("{q}{v}{q}");
            let Some(at) = description.find(&quoted) else {
                continue;
            };
            let after = description.get(at + quoted.len()..).unwrap_or("");
            let rest = after.trim_start();
            let gloss = if let Some(inner) = rest.strip_prefix('(') {
                inner.split(')').next().unwrap_or("")
            } else if let Some(clause) = ["- ", "– ", ": ", "= "]
                .iter()
                .find_map(|d| rest.strip_prefix(d))
            {
                clause
                    .split(['\'', '"', '`', ';', '.'])
                    .next()
                    .unwrap_or("")
            } else {
                ""
            };
            if !gloss.trim().is_empty() {
                out.push((v.clone(), gloss.to_string()));
                break;
            }
        }
    }
    out
}

/// What the lines of a tool's description that list `vals` say of each: "- day_gainers:
/// Biggest gainers today", "* `full` - every field" (a line that starts with the value, after a
/// bullet and any quote, then a colon, a dash or an equals sign).
fn list_glosses(tool_description: &str, vals: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in tool_description.lines() {
        let l = line
            .trim_start()
            .trim_start_matches(['-', '*', '\u{2022}', ' '])
            .trim_start_matches(['\'', '"', '`']);
        for v in vals {
            let Some(rest) = l.strip_prefix(v.as_str()) else {
                continue;
            };
            let rest = rest.trim_start_matches(['\'', '"', '`']);
            let gloss = [":", " -", " \u{2013}", " ="]
                .iter()
                .find_map(|sep| rest.strip_prefix(sep))
                .map(str::trim);
            if let Some(g) = gloss.filter(|g| !g.is_empty())
                && !out.iter().any(|(w, _)| w == v)
            {
                out.push((v.clone(), g.to_string()));
            }
        }
    }
    out
}

/// Words of a parameter name too generic to say that the query means this parameter.
const GENERIC: [&str; 16] = [
    "type", "value", "name", "id", "num", "number", "unit", "units", "mode", "format", "kind",
    "count", "flag", "data", "info", "the",
];

/// Whether two words differ by at most one edit (insert, delete or substitute).
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    let rest_short = short.get(prefix..).unwrap_or_default();
    if short.len() == long.len() {
        rest_short.get(1..).unwrap_or_default() == long.get(prefix + 1..).unwrap_or_default()
    } else {
        rest_short == long.get(prefix + 1..).unwrap_or_default()
    }
}

/// Whether the query names a parameter by its distinctive words: each word of the name that is
/// not [`GENERIC`] and has 3 characters or more is a query word, starts one (`atm` →
/// "atmospheric"), or (5 characters or more) is one edit away from one ("acceleeration"), or
/// shares a stem of five letters or more with one ("labeled" for `labels`). A query word among
/// `as_written` counts only when it is the name's word itself.
fn names_loosely(query_words: &[String], name: &str, as_written: &[String]) -> bool {
    let parts: Vec<String> = name_words(name)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !GENERIC.contains(&w.as_str()))
        .collect();
    !parts.is_empty()
        && parts.iter().all(|p| {
            query_words.iter().any(|w| {
                w == p
                    || !as_written.contains(w)
                        && (w.starts_with(p.as_str())
                            || (p.chars().count() >= 5 && w.chars().count() >= 5 && one_edit(p, w))
                            || same_stem(p, w))
            })
        })
}

/// Whether the request's verb renames what the parameter holds: a query word is `re` and the
/// last word of its name ("rename" for `name` or `newName`, "retitle" for `title`).
fn renamed(query_words: &[String], name: &str) -> bool {
    name_words(name).last().is_some_and(|last| {
        last.chars().count() >= 3
            && query_words
                .iter()
                .any(|w| w.strip_prefix("re") == Some(last.as_str()))
    })
}

/// Whether `query` renames what the parameter `name` holds (see [`renamed`]).
pub(crate) fn renames(query: &str, name: &str) -> bool {
    renamed(&words(query), name)
}

/// Words of a flag's name that do not say what it switches: auxiliaries and modals
/// (`is_minor_edit`, `has_wiki`, `should_notify`), the prefix `auto` (`autoInit`), and the
/// verb of including and the word `only` ("with laps" sets `include_laps`, "my starred
/// segments" `starred_only`).
const FLAG_OPENERS: &[&str] = &[
    "is", "has", "have", "should", "can", "do", "does", "auto", "include", "includes", "only",
];

/// Prepositions of a flag's name: the words after the last one name what it switches
/// (`initialize_with_readme` → `readme`, `convert_to_markdown` → `markdown`).
const PREPOSITIONS: &[&str] = &[
    "with", "to", "as", "in", "on", "for", "from", "by", "into", "of", "at",
];

/// Words that negate what follows them in a request ("without a README", "not as a draft",
/// "don't include images": `don't` is cut into `don`, `t`; "stop monitoring", "skip the
/// images", "omit drafts").
const NEGATORS: &[&str] = &[
    "not", "no", "without", "never", "nor", "t", "stop", "skip", "omit", "exclude",
];

/// The words of a boolean parameter's name a request must hold to set it (see
/// [`flag_in_query`]): the words after its last preposition, else its words without the
/// [`FLAG_OPENERS`]; words of one or two characters do not count.
fn flag_words(name: &str) -> Vec<String> {
    let ws = name_words(name);
    let object = ws
        .iter()
        .rposition(|w| PREPOSITIONS.contains(&w.as_str()))
        .and_then(|i| ws.get(i + 1..))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(&ws);
    object
        .iter()
        .filter(|w| w.chars().count() >= 3 && !FLAG_OPENERS.contains(&w.as_str()))
        .cloned()
        .collect()
}

/// A word without one inflection ending (`including` → `includ`, `encoded` → `encod`,
/// `images` → `imag`), when 3 characters or more remain.
fn stem(w: &str) -> &str {
    for end in ["ing", "ed", "es", "e", "s"] {
        if let Some(s) = w.strip_suffix(end)
            && s.chars().count() >= 3
        {
            return s;
        }
    }
    w
}

/// Whether the request's words state the flag called `name`, and how: `Some(true)` when each of
/// its [`flag_words`] is a query word (as [`word_matches`] says, or by the same [`stem`]:
/// "initialized with a README" for `autoInit`, "including an image" for `includeImage`),
/// `Some(false)` when a [`NEGATORS`] word stands at most three words before the first of them
/// ("without a README", "not as a draft"), `None` when the request does not state it.
fn flag_in_query(query_words: &[String], name: &str) -> Option<bool> {
    let removal = removal_said(query_words, name);
    if removal == Some(None) {
        return None;
    }
    let parts = flag_words(name);
    let matches = |p: &str, w: &str| word_matches(p, w) || stem(p) == stem(w);
    let mut first: Option<usize> = None;
    for p in &parts {
        let at = query_words.iter().position(|w| matches(p, w))?;
        first = Some(first.map_or(at, |f| f.min(at)));
    }
    // A removal's negation stands before its verb: "don't remove it from the client".
    let first = first?.min(removal.flatten().unwrap_or(usize::MAX));
    let negated = (first.saturating_sub(3)..first).any(|j| {
        let w = query_words.get(j).map_or("", String::as_str);
        NEGATORS.contains(&w)
            && (w != "t"
                || j.checked_sub(1)
                    .and_then(|k| query_words.get(k))
                    .is_some_and(|prev| prev.ends_with('n')))
    });
    Some(!negated)
}

/// Where the request says the removal the flag `name` makes, when the flag removes something
/// (a word of its name before its last preposition is a verb of deleting: `removeFromClient`,
/// `delete_from_disk`): `Some(Some(i))`, the verb's word `i`, when such a verb stands in the
/// five words before the flag's own word; `Some(None)` when none does: "drop it from the queue
/// but leave the torrent in the client" names the client, not its removal, so the flag is not
/// stated. `None` for other flags.
fn removal_said(query_words: &[String], name: &str) -> Option<Option<usize>> {
    use toolwright_catalog::text::{Action, action};
    let ws = name_words(name);
    let cut = ws
        .iter()
        .rposition(|w| PREPOSITIONS.contains(&w.as_str()))?;
    let deleting = |w: &String| action(std::slice::from_ref(w)) == Some(Action::Delete);
    if !ws.get(..cut).is_some_and(|head| head.iter().any(deleting)) {
        return None;
    }
    let parts = flag_words(name);
    let at = query_words
        .iter()
        .position(|w| parts.iter().any(|p| word_matches(p, w)))?;
    let from = at.saturating_sub(5);
    Some(
        query_words
            .get(from..at)
            .and_then(|before| before.iter().position(deleting))
            .map(|i| from + i),
    )
}

/// Whether a parameter takes booleans (`boolean`, `["boolean", "null"]`, or an `anyOf`/`oneOf`
/// of a boolean and null).
fn boolean_param(schema: &Value) -> bool {
    let ty = toolwright_catalog::schema::types;
    let only_bool = |ts: &[String]| {
        ts.iter().any(|t| t == "boolean") && ts.iter().all(|t| t == "boolean" || t == "null")
    };
    if schema.get("enum").is_some() || schema.get("const").is_some() {
        return false;
    }
    let own = ty(schema);
    if !own.is_empty() {
        return only_bool(&own);
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        schema
            .get(*k)
            .and_then(Value::as_array)
            .is_some_and(|opts| {
                let ts: Vec<String> = opts.iter().flat_map(ty).collect();
                ts.len() == opts.len() && only_bool(&ts)
            })
    })
}

/// The numbers a query states, in order, without repeats: `-3`, `9.8`, `1e-9`, `1,000`. Digits
/// glued to a letter before them (`x2`) or after a `^` (`x^2`) are not numbers of their own, nor
/// are the digits of a URL or an identifier's leading digits (`9TZKQ4WX1R`), or digits after a
/// hyphen in a word that starts with a letter (`release-1.2`, `covid-19`: part of the word).
///
/// ```
/// use toolwright_local::narrow::query_numbers;
/// assert!(query_numbers("open PRs against release-1.2").is_empty());
/// assert_eq!(query_numbers("b = -3, step 0.5"), [serde_json::json!(-3), serde_json::json!(0.5)]);
/// ```
pub fn query_numbers(query: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for (_, _, v) in numbers_at(query) {
        if !out.iter().any(|o| o.as_f64() == v.as_f64()) {
            out.push(v);
        }
    }
    out
}

/// Every number of the query with its character span (start, end), in order.
pub(crate) fn numbers_at(query: &str) -> Vec<(usize, usize, Value)> {
    let chars: Vec<char> = query.chars().collect();
    let mut out: Vec<(usize, usize, Value)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars.get(i).copied().unwrap_or(' ');
        let prev = if i == 0 {
            None
        } else {
            chars.get(i - 1).copied()
        };
        let starts_number =
            c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit));
        // `1280x720`, `3×4`: a number after a multiplication sign between digits (not `0x1F`).
        let times = prev.is_some_and(|p| p == 'x' || p == '×')
            && i >= 2
            && chars.get(i - 2).is_some_and(char::is_ascii_digit)
            && !(chars.get(i - 2) == Some(&'0')
                && (i < 3 || !chars.get(i - 3).is_some_and(char::is_ascii_digit)));
        if !starts_number
            || (!times
                && prev.is_some_and(|p| p.is_alphanumeric() || p == '^' || p == '_' || p == '.'))
        {
            i += 1;
            continue;
        }
        // `release-1.2`, `covid-19`, `ip-10-0-3-17`: digits after a hyphen in a word that starts
        // with a letter belong to the word.
        let hyphenated = prev == Some('-')
            && i >= 2
            && chars.get(i - 2).is_some_and(|p| p.is_alphanumeric())
            && {
                let before = chars.get(..i).unwrap_or_default();
                let from = before
                    .iter()
                    .rposition(|c| c.is_whitespace())
                    .map_or(0, |p| p + 1);
                // A letter anywhere before in the word: `4af1c2d0-1111-…` is an id too.
                before
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.is_alphabetic())
            };
        if hyphenated {
            while chars
                .get(i)
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                i += 1;
            }
            continue;
        }
        let negative = prev == Some('-')
            && (i < 2
                || chars
                    .get(i - 2)
                    .is_some_and(|p| !p.is_alphanumeric() && *p != ')'));
        let start = i;
        let mut text = String::new();
        let mut seen_dot = false;
        while let Some(&d) = chars.get(i) {
            if d.is_ascii_digit() {
                text.push(d);
            } else if d == ','
                && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && chars.get(i + 2).is_some_and(char::is_ascii_digit)
                && chars.get(i + 3).is_some_and(char::is_ascii_digit)
                && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
                && !seen_dot
            {
                // thousands separator
            } else if d == '.' && !seen_dot && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                seen_dot = true;
                text.push(d);
            } else if (d == 'e' || d == 'E')
                && (chars.get(i + 1).is_some_and(char::is_ascii_digit)
                    || (matches!(chars.get(i + 1), Some('-' | '+'))
                        && chars.get(i + 2).is_some_and(char::is_ascii_digit)))
            {
                text.push('e');
                i += 1;
                if let Some(&sign) = chars.get(i).filter(|s| **s == '-' || **s == '+') {
                    text.push(sign);
                    i += 1;
                }
                while let Some(&d) = chars.get(i).filter(|d| d.is_ascii_digit()) {
                    text.push(d);
                    i += 1;
                }
                break;
            } else {
                break;
            }
            i += 1;
        }
        if i == start {
            i += 1;
            continue;
        }
        let signed = if negative { format!("-{text}") } else { text };
        let v = if signed.contains(['.', 'e']) {
            signed
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
        } else {
            signed.parse::<i64>().ok().map(|n| Value::Number(n.into()))
        };
        if let Some(v) = v
            && !in_url(&chars, start)
            && !in_identifier(&chars, i)
        {
            out.push((start, i, v));
        }
    }
    out
}

/// A parameter's description and format, as [`crate::cues::written_as_described`] reads them.
/// Whether parameter `name` takes a date ([`crate::cues::written_as_described`]).
pub(crate) fn takes_date(name: &str, p: &Value) -> bool {
    crate::cues::written_as_described(name, &described_with_format(p))
        == Some(crate::cues::Written::Date)
}

fn described_with_format(p: &Value) -> String {
    let text = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
    format!("{} {}", text("description"), text("format"))
}

/// Whether the number at chars `start..end` is a phone number written the international way:
/// after a `+`, seven digits or more.
fn phone_number(query: &str, start: usize, end: usize) -> bool {
    start > 0 && query.chars().nth(start - 1) == Some('+') && end.saturating_sub(start) >= 7
}

/// Words that name a period of a year when the year follows them besides the months
/// ([`crate::periods::is_month`]): "FY 2023", "since 2023".
const PERIODS: &[&str] = &["fy", "year", "since"];

/// Whether the number at chars `start..end` is a year written with the period it bounds ("the
/// deals won in Q1 2025", "invoices since 2023", "2024 H2"): a date, not a count for a `limit`.
/// Only four digits from 1900 to 2100 are years.
///
/// ```
/// # use toolwright_local::narrow::period_year;
/// assert!(period_year("deals won in Q1 2025", 16, 20));
/// assert!(period_year("revenue for 2024 h2", 12, 16));
/// assert!(!period_year("show 2025 rows", 5, 9));
/// assert!(!period_year("top 50 deals since may", 4, 6));
/// ```
pub fn period_year(query: &str, start: usize, end: usize) -> bool {
    let chars: Vec<char> = query.chars().collect();
    let digits: String = chars.get(start..end).unwrap_or_default().iter().collect();
    let year = digits.len() == 4
        && digits
            .parse::<u32>()
            .is_ok_and(|y| (1900..=2100).contains(&y));
    if !year {
        return false;
    }
    let word = |range: Option<&[char]>, last: bool| -> String {
        let text: String = range.unwrap_or_default().iter().collect();
        let mut words = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty());
        let w = if last {
            words.next_back()
        } else {
            words.next()
        };
        w.unwrap_or_default().to_lowercase()
    };
    let before = word(chars.get(..start), true);
    let after = word(chars.get(end..), false);
    crate::periods::is_part_of_year(&before)
        || PERIODS.contains(&before.as_str())
        || crate::periods::is_month(&before)
        || crate::periods::is_part_of_year(&after)
}

/// Whether the char at `start` is inside a word written as an ISO date (`2024-03-15`,
/// `2025-05-02T08:00:00Z`).
fn in_date(query: &str, start: usize) -> bool {
    let chars: Vec<char> = query.chars().collect();
    let from = chars
        .get(..start)
        .and_then(|b| b.iter().rposition(|c| c.is_whitespace()))
        .map_or(0, |p| p + 1);
    let to = chars
        .get(start..)
        .and_then(|a| a.iter().position(|c| c.is_whitespace()))
        .map_or(chars.len(), |p| start + p);
    let word: String = chars.get(from..to).unwrap_or_default().iter().collect();
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    crate::cues::Written::Date.fits(word)
}

/// Whether the number starting at char `start` follows a capitalised word that does not open
/// the request: it is part of a name ("Sprint 14", "the Rust 2024 edition", "Windows 11"), not a
/// count.
///
/// ```
/// # use toolwright_local::narrow::in_name;
/// assert!(in_name("create a cycle named Sprint 14", 28));
/// assert!(!in_name("Top 5 results for rust", 4));
/// assert!(!in_name("show the last 20 lines", 14));
/// ```
pub fn in_name(query: &str, start: usize) -> bool {
    let before: Vec<char> = query.chars().take(start).collect();
    let Some((&' ', rest)) = before.split_last() else {
        return false;
    };
    let word_start = rest
        .iter()
        .rposition(|c| !c.is_alphabetic())
        .map_or(0, |p| p + 1);
    let word = rest.get(word_start..).unwrap_or_default();
    let opens = rest
        .get(..word_start)
        .unwrap_or_default()
        .iter()
        .rev()
        .find(|c| !c.is_whitespace())
        .is_none_or(|c| matches!(c, '.' | '!' | '?' | ':'));
    word.len() >= 2 && word.first().is_some_and(|c| c.is_uppercase()) && !opens
}

/// Whether a number ending before `end` is glued to letters followed by more digits in the same
/// word: the start of an identifier (`1a2b3c4d…`, `9TZKQ4WX1R`), not a number the request
/// states (`24h`, `1960s`, `3rd` and `1280x720` stay numbers).
fn in_identifier(chars: &[char], end: usize) -> bool {
    // `19:meeting_NjQ2…@thread.v2`: digits, a colon and a letter start an identifier, not a
    // clock time.
    if chars.get(end) == Some(&':') && chars.get(end + 1).is_some_and(|c| c.is_alphabetic()) {
        return true;
    }
    let times = matches!(chars.get(end), Some('x' | '×'))
        && chars.get(end + 1).is_some_and(char::is_ascii_digit);
    if times || !chars.get(end).is_some_and(|c| c.is_alphabetic()) {
        return false;
    }
    chars
        .get(end..)
        .unwrap_or_default()
        .iter()
        .take_while(|c| !c.is_whitespace())
        .any(char::is_ascii_digit)
}

/// Whether the character at `at` belongs to a word holding `://`: a number in a URL
/// (`https://news.example.com/2025/05/story.html`) is part of the address, not a number the
/// request states.
fn in_url(chars: &[char], at: usize) -> bool {
    let start = chars
        .get(..at)
        .and_then(|b| b.iter().rposition(|c| c.is_whitespace()))
        .map_or(0, |p| p + 1);
    let end = chars
        .get(at..)
        .and_then(|a| a.iter().position(|c| c.is_whitespace()))
        .map_or(chars.len(), |p| at + p);
    let word: String = chars.get(start..end).unwrap_or_default().iter().collect();
    word.contains("://")
}

/// Alphabetic words of the query with their character start.
pub(crate) fn words_at(query: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    for (i, c) in query.chars().enumerate() {
        if c.is_alphabetic() {
            if cur.is_empty() {
                start = i;
            }
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push((start, std::mem::take(&mut cur)));
        }
    }
    if !cur.is_empty() {
        out.push((start, cur));
    }
    out
}

/// Whether the query word `w` stands for the name word `p` (see [`names_loosely`]).
fn word_matches(p: &str, w: &str) -> bool {
    w == p
        || w.starts_with(p)
        || (p.chars().count() >= 5 && w.chars().count() >= 5 && one_edit(p, w))
}

/// Words that make a number a rate of what follows ("100 per page", "5 each day").
const RATE_WORDS: &[&str] = &["per", "each", "every"];

/// The last distinctive word of parameter `name` (three letters or more, not generic), when
/// the request's `words` name the parameter ([`names_loosely`]).
fn named_word(name: &str, words: &[(usize, String)]) -> Option<String> {
    let last = name_words(name)
        .into_iter()
        .rfind(|w| w.chars().count() >= 3 && !GENERIC.contains(&w.as_str()))?;
    let ws: Vec<String> = words.iter().map(|(_, w)| w.clone()).collect();
    names_loosely(&ws, name, &[]).then_some(last)
}

/// The numbers the query attaches to parameter `name`: after a mention of the name's last
/// distinctive word, the first number with at most 3 words between ("initial velocity of 10",
/// "budgets not exceeding $100"), else a number just before it with at most 1 word between
/// ("7 days"), unless a rate word stands between ("100 per page" is no `page`, but is
/// `perPage`'s). A number right before the word counts what it names and wins over one that
/// follows with words between ("2 adults from 2027-03-10" → 2, not 2027), and over one right
/// after a plural ("3 adults 2 children" → 3; "page 3" still takes 3). Every mention counts
/// ("time of 4 s, then … time of 10 s" → 4 and 10).
pub(crate) fn attached_numbers(
    name: &str,
    words: &[(usize, String)],
    numbers: &[(usize, usize, Value)],
) -> Vec<Value> {
    let Some(last) = named_word(name, words) else {
        return Vec::new();
    };
    let per_name = name_words(name)
        .iter()
        .any(|w| RATE_WORDS.contains(&w.as_str()));
    let between = |a: usize, b: usize| words.iter().filter(|(s, _)| *s > a && *s < b).count();
    let mut out: Vec<Value> = Vec::new();
    for (pos, w) in words {
        if !word_matches(&last, w) {
            continue;
        }
        let after = numbers
            .iter()
            .find(|(s, _, _)| *s > *pos && between(*pos, *s) <= 3);
        // "100 per page" is a size per page, not a page: a number one rate word before the name
        // word is not its number, unless the name says per too (`perPage`).
        let rated = |e: usize| {
            !per_name
                && words
                    .iter()
                    .any(|(s, w)| *s > e && *s < *pos && RATE_WORDS.contains(&w.as_str()))
        };
        let before = |most: usize| {
            numbers
                .iter()
                .rev()
                .find(|(_, e, _)| *e <= *pos && between(*e, *pos) <= most && !rated(*e))
        };
        let next_to = |n: &(usize, usize, Value)| between(*pos, n.0) == 0;
        // "3 adults 2 children": a plural counts the number before it; "show 20, page 3" does not.
        let plural = w.len() > 3 && w.ends_with('s');
        let counted = before(0).filter(|_| plural || !after.is_some_and(next_to));
        if let Some((_, _, v)) = counted.or(after).or_else(|| before(1))
            && !out.iter().any(|o| o.as_f64() == v.as_f64())
        {
            out.push(v.clone());
        }
    }
    out
}

/// The numbers the request writes right next to a word that only one of the tool's number
/// parameters has in its name ("add a product, 89 net, 350 gross" → `price_net` 89,
/// `price_gross` 350): the word tells the parameters apart where the whole name is not said.
/// Each parameter takes a number only when exactly one stands next to one of its words.
pub(crate) fn distinguished_numbers(
    props: &Map<String, Value>,
    query: &str,
) -> Vec<(String, Value)> {
    let numeric: Vec<&String> = props
        .iter()
        .filter(|(_, p)| free_number(p))
        .map(|(k, _)| k)
        .collect();
    if numeric.len() < 2 {
        return Vec::new();
    }
    let (words, numbers) = (words_at(query), numbers_at(query));
    let own = |k: &str| -> Vec<String> {
        name_words(k)
            .into_iter()
            .filter(|w| w.chars().count() >= 3 && !GENERIC.contains(&w.as_str()))
            .collect()
    };
    // Each number with the words right before and after it (no other number between).
    let clear = |a: usize, b: usize| !numbers.iter().any(|(s, _, _)| *s > a && *s < b);
    let beside: Vec<(&Value, Vec<&str>)> = numbers
        .iter()
        .map(|(start, end, v)| {
            let after = words
                .iter()
                .find(|(s, _)| *s >= *end)
                .filter(|(s, _)| clear(*end, *s));
            let before = words
                .iter()
                .rev()
                .find(|(s, w)| s + w.chars().count() <= *start)
                .filter(|(s, _)| clear(*s, *start));
            let ws = [after, before]
                .into_iter()
                .flatten()
                .map(|(_, w)| w.as_str())
                .collect();
            (v, ws)
        })
        .collect();
    let mut out = Vec::new();
    for k in &numeric {
        let distinct: Vec<String> = own(k)
            .into_iter()
            .filter(|w| !numeric.iter().any(|o| o != k && own(o).contains(w)))
            .collect();
        let next_to: Vec<&Value> = beside
            .iter()
            .filter(|(_, ws)| ws.iter().any(|w| distinct.iter().any(|d| w == d)))
            .map(|(v, _)| *v)
            .collect();
        if let [v] = next_to.as_slice() {
            out.push(((*k).clone(), (*v).clone()));
        }
    }
    out
}

/// Whether the request writes a number right after the last distinctive word of parameter
/// `name`, with no word between ("page 2" for `page`, "limit: 20" for `limit`); not a rate
/// ("50 per page" is no `page`).
fn number_after_name(
    name: &str,
    words: &[(usize, String)],
    numbers: &[(usize, usize, Value)],
) -> bool {
    let Some(last) = named_word(name, words) else {
        return false;
    };
    // "the last 10 occurrences" is a cap of occurrences, not `last_id` 10, and "max 20" no
    // `max_id`: an identifier is named by its thing ("item 1482"), not by an order word.
    if ORDER_WORDS.contains(&last.as_str()) || crate::cues::holds_identifier(name, "") {
        return false;
    }
    words.iter().enumerate().any(|(i, (pos, w))| {
        let rated = i
            .checked_sub(1)
            .and_then(|j| words.get(j))
            .is_some_and(|(_, p)| RATE_WORDS.contains(&p.as_str()));
        let next_word = words.get(i + 1).map_or(usize::MAX, |(s, _)| *s);
        word_matches(&last, w)
            && !rated
            && numbers
                .iter()
                .find(|(s, _, _)| s > pos)
                .is_some_and(|(s, _, _)| *s < next_word && *s <= pos + w.chars().count() + 3)
    })
}

/// Words that say which end ("the last 10", "the first 5"), which name no parameter's value
/// when a number follows them (`last_id`); bounds such as "max 10" or "top 5" do.
const ORDER_WORDS: &[&str] = &[
    "first", "last", "next", "previous", "prev", "latest", "recent", "newest", "oldest",
];

/// Whether the number `n` fits a number or integer schema: an integer for `integer`, within
/// its `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum`.
pub(crate) fn number_fits(schema: &Value, n: &Value) -> bool {
    let unnulled = crate::spans::without_null(schema);
    let schema = unnulled.as_ref().unwrap_or(schema);
    let ty = schema.get("type").and_then(Value::as_str);
    let typed = match ty {
        Some("integer") => n.is_i64() || n.is_u64(),
        Some("number") => n.is_number(),
        _ => false,
    };
    let x = n.as_f64().unwrap_or(f64::NAN);
    let bound = |k: &str, ok: fn(f64, f64) -> bool| {
        schema
            .get(k)
            .and_then(Value::as_f64)
            .is_none_or(|m| ok(x, m))
    };
    typed
        && bound("minimum", |x, m| x >= m)
        && bound("maximum", |x, m| x <= m)
        && bound("exclusiveMinimum", |x, m| x > m)
        && bound("exclusiveMaximum", |x, m| x < m)
}

/// `schema` with numeric parameters restricted to `numbers` (integers only for `integer`
/// parameters; arrays of numbers item by item). A parameter stays as it is when no number fits
/// its type, bounds or enum.
fn ground_schema(schema: &Value, numbers: &[Value], report: &mut Vec<String>, path: &str) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    let ty = obj.get("type").and_then(Value::as_str);
    match ty {
        Some("number" | "integer") if !obj.contains_key("enum") && !obj.contains_key("const") => {
            let fits: Vec<Value> = numbers
                .iter()
                .filter(|n| number_fits(schema, n))
                .cloned()
                .collect();
            if fits.is_empty() {
                return schema.clone();
            }
            report.push(path.to_string());
            let mut m = Map::new();
            if let Some(t) = obj.get("type") {
                m.insert("type".into(), t.clone());
            }
            m.insert("enum".into(), Value::Array(fits));
            if let Some(d) = obj.get("description") {
                m.insert("description".into(), d.clone());
            }
            Value::Object(m)
        }
        Some("array") => match obj.get("items") {
            Some(items) => {
                let mut m = obj.clone();
                m.insert(
                    "items".into(),
                    ground_schema(items, numbers, report, &format!("{path}[]")),
                );
                Value::Object(m)
            }
            None => schema.clone(),
        },
        _ => schema.clone(),
    }
}

/// `spec` (already narrowed) with its number and integer parameters restricted to the numbers
/// the query states (see the module docs); the names of the restricted parameters. Without a
/// number in the query, nothing changes.
pub fn ground_numbers(spec: &ToolSpec, query: &str) -> (ToolSpec, Vec<String>) {
    let numbers = query_numbers(query);
    let mut report = Vec::new();
    let Some(props) = spec.parameters.get("properties").and_then(Value::as_object) else {
        return (spec.clone(), report);
    };
    // Counts written in words ("with a pet") are numbers the request states too.
    let mut counted = crate::caps::counted_in_words(props, query);
    // And a month named in words, to a number parameter named as a month ("March" → 3).
    counted.extend(crate::periods::month_numbers(props, query));
    // And a number next to the word that tells a number parameter apart ("89 net").
    counted.extend(distinguished_numbers(props, query));
    // And so is one of a unit written without a number ("the past day").
    if numbers.is_empty() && counted.is_empty() && crate::units::placed(props, query).is_empty() {
        return (spec.clone(), report);
    }
    // Numbers the query attaches to a parameter by naming it go to that parameter; the others
    // keep every number the query states, except those attached elsewhere (when any remain).
    let spans = numbers_at(query);
    let words = words_at(query);
    // Parameters told apart only by a number (`side1`, `side2`) cannot be named apart.
    let key = |k: &str| -> Vec<String> {
        name_words(k)
            .into_iter()
            .filter(|w| w.chars().count() >= 3 && !GENERIC.contains(&w.as_str()))
            .collect()
    };
    let attached: Vec<(String, Vec<Value>)> = props
        .keys()
        .map(|k| {
            let ambiguous = props.keys().any(|o| o != k && key(o) == key(k));
            let numbers = if ambiguous {
                Vec::new()
            } else {
                attached_numbers(k, &words, &spans)
            };
            (k.clone(), numbers)
        })
        .collect();
    // A cap ("the first 3000 characters") goes to the parameter that takes it, and so does a
    // bound on a value ("under 60" → `maxPrice`).
    let mut attached = attached;
    let named = |k: &str| {
        attached
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let caps = crate::caps::capped(props, query, named);
    let things = crate::caps::capped_things(props, query, &spec.name, named);
    let bounds = crate::caps::bounded(props, query, named);
    // A count written in words ("with a pet" → `pets: 1`) goes to the parameter it counts.
    for (k, v) in caps.into_iter().chain(things).chain(bounds).chain(counted) {
        if let Some((_, own)) = attached.iter_mut().find(|(n, _)| *n == k)
            && own.is_empty()
        {
            own.push(v);
        }
    }
    // A number stated with a unit goes, converted, to the parameter in that unit.
    let units = crate::units::placed(props, query);
    // A size written as width by height ("1280x720") goes to `width` and `height`.
    let sizes = crate::units::sized(props, query);
    let given = units
        .iter()
        .map(|(k, v, _)| (k, v))
        .chain(sizes.iter().map(|(k, v)| (k, v)));
    for (k, v) in given {
        if let Some((_, own)) = attached.iter_mut().find(|(n, _)| n == k) {
            *own = vec![v.clone()];
        }
    }
    let attached = ordered_range(props, attached, &numbers);
    let claimed: Vec<&Value> = attached
        .iter()
        .flat_map(|(_, v)| v.iter())
        .chain(units.iter().map(|(_, _, written)| written))
        .collect();
    let free: Vec<Value> = numbers
        .iter()
        .filter(|n| !claimed.iter().any(|c| c.as_f64() == n.as_f64()))
        .cloned()
        .collect();
    let grounded: Map<String, Value> = props
        .iter()
        .map(|(k, v)| {
            let own = attached
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, a)| a.clone())
                .unwrap_or_default();
            let mut r = Vec::new();
            let mut g = Value::Null;
            let minor = in_minor_units(v);
            for candidates in [&own, &free, &numbers] {
                if candidates.is_empty() {
                    continue;
                }
                r.clear();
                let candidates = if minor {
                    &hundredfold(candidates)
                } else {
                    candidates
                };
                g = ground_schema(v, candidates, &mut r, k);
                if !r.is_empty() {
                    break;
                }
            }
            if r.is_empty() {
                g = v.clone();
            }
            report.extend(r);
            (k.clone(), g)
        })
        .collect();
    let mut out = spec.clone();
    if let Some(root) = out.parameters.as_object_mut() {
        root.insert("properties".into(), Value::Object(grounded));
    }
    (out, report)
}

/// Whether a number parameter's description says it counts a currency's minor unit ("The unit
/// amount of the price in cents.", "in the smallest currency unit"): the request's "$15" is
/// `1500` there.
fn in_minor_units(schema: &Value) -> bool {
    let d = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    [
        "in cents",
        "smallest currency unit",
        "minor unit",
        "in pence",
    ]
    .iter()
    .any(|p| d.contains(p))
}

/// The numbers a hundredfold, as integers (an amount in cents).
fn hundredfold(numbers: &[Value]) -> Vec<Value> {
    numbers
        .iter()
        .filter_map(Value::as_f64)
        .map(|n| (n * 100.0).round())
        .filter(|n| n.is_finite() && n.abs() < 9.0e15)
        .map(|n| json!(n as i64))
        .collect()
}

/// The words that open and close a range, in a parameter's name (`from_version`/`to_version`,
/// `start`/`end`, `min_price`/`max_price`).
const RANGE_WORDS: &[(&str, &str)] = &[
    ("from", "to"),
    ("start", "end"),
    ("begin", "end"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("low", "high"),
    ("lower", "upper"),
];

/// The number parameters of `props` that open and close one range: their names differ only in
/// a pair of [`RANGE_WORDS`].
fn range_pair(props: &Map<String, Value>) -> Option<(String, String)> {
    let numeric: Vec<&str> = props
        .iter()
        .filter(|(_, v)| {
            matches!(
                v.get("type").and_then(Value::as_str),
                Some("number" | "integer")
            )
        })
        .map(|(k, _)| k.as_str())
        .collect();
    crate::cues::name_pair(&numeric, RANGE_WORDS)
}

/// When the tool has a range's two ends ([`range_pair`]) and the query states exactly two
/// numbers no other parameter took, the first goes to the range's start and the second to its
/// end ("between versions 6 and 9").
fn ordered_range(
    props: &Map<String, Value>,
    mut attached: Vec<(String, Vec<Value>)>,
    numbers: &[Value],
) -> Vec<(String, Vec<Value>)> {
    let Some((lo, hi)) = range_pair(props) else {
        return attached;
    };
    // The ends' own attachments are dropped: their shared word ("versions 6 and 9") attaches
    // the same numbers to both.
    let taken: Vec<f64> = attached
        .iter()
        .filter(|(k, _)| *k != lo && *k != hi)
        .flat_map(|(_, v)| v.iter().filter_map(Value::as_f64))
        .collect();
    let left: Vec<&Value> = numbers
        .iter()
        .filter(|n| n.as_f64().is_some_and(|f| !taken.contains(&f)))
        .collect();
    if let [first, second] = left.as_slice() {
        for (k, v) in attached.iter_mut() {
            if *k == lo {
                *v = vec![(*first).clone()];
            } else if *k == hi {
                *v = vec![(*second).clone()];
            }
        }
    }
    attached
}

/// `words` (the request's, as [`words`] splits them) without the first when the request opens
/// with a verb of an action not written in capitals: the words that may name a choice its
/// description lists. "Get us another local number" names no `GET` of "Can be: `GET` or
/// `POST`"; "GET https://…" still does. (A schema's `enum` keeps the verb: "close issue 42"
/// names `closed`, "approve PR 318" `APPROVE`.)
fn without_opening_verb(query: &str, words: &[String]) -> Vec<String> {
    let opening = query
        .split_whitespace()
        .next()
        .filter(|w| w.chars().any(char::is_lowercase))
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        });
    let verb = opening.is_some_and(|w| {
        !w.is_empty()
            && words.first() == Some(&w)
            && toolwright_catalog::text::action(std::slice::from_ref(&w)).is_some()
    });
    words.iter().skip(usize::from(verb)).cloned().collect()
}

/// The allowed string values of a property (its `enum`, or the consts/enums of its `anyOf`/`oneOf`).
///
/// Beside a branch that takes one value, a branch that takes an array of the values (pydantic's
/// `Literal[...] | list[Literal[...]]`: "one style as a string or several as an array") adds its
/// items' values: one of them alone is valid, so the property may be restricted to a string of
/// them. Without such a branch, an array branch makes the property no choice.
fn enum_values(schema: &Value) -> Option<Vec<String>> {
    if let Some(Value::Array(e)) = schema.get("enum") {
        return Some(
            e.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
        );
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(opts)) = schema.get(key) {
            let (mut vals, mut single) = (Vec::new(), false);
            for o in opts {
                if o.get("type").and_then(Value::as_str) == Some("null") {
                    continue;
                }
                let items = || {
                    (o.get("type").and_then(Value::as_str) == Some("array"))
                        .then(|| o.get("items").and_then(enum_values))
                        .flatten()
                };
                if let Some(c) = o.get("const").and_then(Value::as_str) {
                    vals.push(c.to_string());
                    single = true;
                } else if let Some(inner) = enum_values(o) {
                    vals.extend(inner);
                    single = true;
                } else if let Some(inner) = items() {
                    vals.extend(inner);
                } else {
                    return None;
                }
            }
            let mut seen = std::collections::HashSet::new();
            vals.retain(|v| seen.insert(v.clone()));
            return (single && !vals.is_empty()).then_some(vals);
        }
    }
    None
}

/// What [`narrow_for_query`] changed, for the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narrowing {
    /// Optional parameters left out.
    pub dropped: Vec<String>,
    /// Parameters restricted to mentioned values, with those values.
    pub restricted: Vec<(String, Vec<String>)>,
    /// The parameters of `restricted` whose values the query does not name as written: met
    /// through a gloss, or taken from the choices a plain string's documentation lists. Weaker
    /// evidence that the query means this tool ([`Narrowing::names_allowed_value`]).
    pub inferred: Vec<String>,
    /// Optional parameters whose value the query names, made required so the model sets them.
    pub promoted: Vec<String>,
    /// Optional number parameters kept because the query states a number no other parameter
    /// can take.
    pub for_numbers: Vec<String>,
    /// Optional boolean parameters the query states, with the value it states ("initialized
    /// with a README" → `autoInit` true, "not as a draft" → `draft` false): made required and
    /// restricted to that value.
    pub flags: Vec<(String, bool)>,
}

impl Narrowing {
    /// Whether the query names, as written, an allowed value of an `enum` parameter (a currency
    /// code, a role): strong evidence that it means this tool.
    pub fn names_allowed_value(&self) -> bool {
        self.restricted
            .iter()
            .any(|(p, _)| !self.inferred.contains(p))
    }

    /// A sentence for the trace, or `None` when nothing changed.
    pub fn describe(&self, tool: &str) -> Option<String> {
        if self.dropped.is_empty()
            && self.restricted.is_empty()
            && self.promoted.is_empty()
            && self.for_numbers.is_empty()
            && self.flags.is_empty()
        {
            return None;
        }
        let mut parts = Vec::new();
        if !self.dropped.is_empty() {
            parts.push(format!(
                "left out optional parameters the query does not mention ({})",
                self.dropped.join(", ")
            ));
        }
        if !self.for_numbers.is_empty() {
            parts.push(format!(
                "kept {} for a number no other parameter takes",
                self.for_numbers.join(", ")
            ));
        }
        if !self.promoted.is_empty() {
            parts.push(format!(
                "made {} required because the query names a value",
                self.promoted.join(", ")
            ));
        }
        if !self.flags.is_empty() {
            let set: Vec<String> = self
                .flags
                .iter()
                .map(|(p, v)| format!("{p} = {v}"))
                .collect();
            parts.push(format!(
                "set the flags the query states ({})",
                set.join(", ")
            ));
        }
        for (p, vals) in &self.restricted {
            parts.push(format!(
                "restricted {p} to the values the query mentions ({})",
                vals.join(", ")
            ));
        }
        Some(format!("{tool}: {}", parts.join("; ")))
    }
}

/// Restricts each group of `kept` parameters sharing one set of values (an `enum`, or choices
/// their documentation lists) to the values the request names (`vw`: its words and the codes of
/// the currencies it names), when it names enough of them and not all; several parameters
/// sharing the values get them in the request's order, a move's source first.
fn restrict_enums(
    kept: &mut Map<String, Value>,
    spec: &ToolSpec,
    props: &Map<String, Value>,
    query: &str,
    [vw, vw_listed]: [&[String]; 2],
    report: &mut Narrowing,
) {
    let documented = |name: &str| documented(props, spec, name);
    let mut groups: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for (name, p) in kept.iter() {
        if let Some(vals) = choices(name, p, &spec.description, props) {
            match groups.iter_mut().find(|(v, _)| *v == vals) {
                Some((_, names)) => names.push(name.clone()),
                None => groups.push((vals, vec![name.clone()])),
            }
        }
    }
    for (vals, names) in groups {
        let described = names.first().map_or("", |n| documented(n));
        let listed = names
            .first()
            .and_then(|n| kept.get(n))
            .is_some_and(|p| enum_values(p).is_none());
        let (mentioned, glossed) = mentioned_values(
            if listed { vw_listed } else { vw },
            &vals,
            described,
            &spec.name,
            &spec.description,
            names.len(),
        );
        // A required text whose documentation lists its only choices ("record_type: 'person'
        // or 'company'") takes one of them even when the request names none: the model
        // chooses among the choices, not among the request's words.
        let required = |n: &str| {
            spec.parameters
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(n)))
        };
        let only_choices = match names.as_slice() {
            [n] => {
                mentioned.is_empty()
                    && listed
                    && required(n)
                    && crate::listed::listed_values(documented(n)).as_ref() == Some(&vals)
                    && only_the_choices(documented(n), &vals)
            }
            _ => false,
        };
        let mentioned = if only_choices {
            vals.clone()
        } else {
            mentioned
        };
        if mentioned.is_empty()
            || mentioned.len() < names.len()
            || (mentioned.len() == vals.len() && !only_choices)
        {
            continue;
        }
        // Several parameters sharing the values get them in the request's order: a move's ends
        // take them source first ("connect deal 4410 to company 9023").
        let mut mentioned = mentioned;
        if names.len() > 1 {
            mentioned.sort_by_key(|v| first_mention(vw, v));
            // The currency the request gives an amount in is the source, wherever it stands
            // ("how many dollars is 5000 yen" converts from yen).
            let priced = crate::kinds::priced_currencies(query);
            let is_priced = |v: &String| priced.iter().any(|p| p.eq_ignore_ascii_case(v));
            let names_ref: Vec<&str> = names.iter().map(String::as_str).collect();
            if crate::cues::ends_pair(&names_ref).is_some()
                && mentioned.iter().filter(|v| is_priced(v)).count() == 1
            {
                mentioned.sort_by_key(|v| !is_priced(v));
            }
        }
        for n in names {
            if let Some(p) = kept.get_mut(&n) {
                let mut m = Map::new();
                m.insert("type".into(), json!("string"));
                m.insert("enum".into(), json!(mentioned));
                if let Some(d) = p.get("description") {
                    m.insert("description".into(), d.clone());
                }
                *p = Value::Object(m);
                report.restricted.push((n.clone(), mentioned.clone()));
                if glossed || listed {
                    report.inferred.push(n.clone());
                }
            }
        }
    }
}

/// Whether a documentation says nothing but its choices: at most four words outside them
/// ("'person' or 'company'.", "Email type: 'work', 'personal', or 'other'."), not a text that
/// also describes another way of writing the value ("Budget month in ISO format (e.g.
/// 2016-12-01). The string 'current' can also be used").
fn only_the_choices(documentation: &str, choices: &[String]) -> bool {
    let mut rest = documentation.to_lowercase();
    for c in choices {
        rest = rest.replace(&c.to_lowercase(), " ");
    }
    words(&rest).len() <= 4
}

/// `spec` with its parameters narrowed to what `query` mentions (see the module docs).
pub fn narrow_for_query(spec: &ToolSpec, query: &str) -> (ToolSpec, Narrowing) {
    let mut problems = Vec::new();
    let schema = toolwright_catalog::schema::inline_refs(&spec.parameters, &mut problems);
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return (spec.clone(), Narrowing::default());
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let said = Said::new(spec, query);
    let mut report = Narrowing::default();
    // Which parameters stay: required ones, and optional ones the query names or names a value of.
    let mut stays: Vec<bool> = props
        .iter()
        .map(|(name, p)| {
            let is_required = required.contains(&name.as_str());
            stays_for_words(spec, props, (name, p), is_required, &said, &mut report)
        })
        .collect();
    keep_written(props, query, &mut stays, &mut report);
    keep_cued(props, query, &mut stays, &mut report);
    keep_for_quote(props, query, &mut stays, &mut report);
    keep_person_name(props, spec, query, &mut stays, &mut report);
    keep_maker(props, spec, query, &mut stays, &mut report);
    let coded = keep_coded(props, spec, query, &required, &mut stays, &mut report);
    keep_range_ends(props, query, &mut stays, &mut report);
    keep_marked_side(props, query, &required, &mut stays);
    let measured = keep_given_numbers(spec, props, query, &required, (&mut stays, &mut report));
    let stated = stated_numbers(props, query, &stays);
    let mut kept = kept_parameters(spec, props, stays, (&stated, &measured), &mut report);
    settle_kept(&mut kept, coded, &report);
    restrict_enums(
        &mut kept,
        spec,
        props,
        query,
        [&said.vw, &said.vw_listed],
        &mut report,
    );
    (narrowed_spec(spec, kept, &required, &report), report)
}

/// A parameter's documentation: its description, or what [`crate::listed::documentation`]
/// finds for it; empty for a parameter the schema does not have.
fn documented<'a>(props: &'a Map<String, Value>, spec: &'a ToolSpec, name: &str) -> &'a str {
    props.get(name).map_or("", |p| {
        crate::listed::documentation(name, p, &spec.description)
    })
}

/// The request's words, read the ways narrowing needs them for one tool.
struct Said<'q> {
    /// The request.
    query: &'q str,
    /// Every word of the request.
    words: Vec<String>,
    /// The words outside quoted values.
    unquoted: Vec<String>,
    /// The words outside quoted values, with each word after a rate word blanked.
    unrated: Vec<String>,
    /// The words of the tool's own name.
    tool_words: Vec<String>,
    /// The words an allowed value may be named by.
    vw: Vec<String>,
    /// [`Said::vw`] without the request's opening verb, for values listed in documentation.
    vw_listed: Vec<String>,
}

impl<'q> Said<'q> {
    /// Reads `query` for `spec`.
    fn new(spec: &ToolSpec, query: &'q str) -> Self {
        let qw = words(query);
        // A parameter's name inside a quoted value names nothing: "Write release notes" is the
        // task's name, and says nothing of its `notes`.
        let unquoted_words = words(&toolwright_catalog::values::without_quoted(query));
        // "100 per page" names a size per page (`perPage`, `page_size`), not which `page`: a
        // word after a rate word names only a parameter whose name says the rate too.
        let unrated_words: Vec<String> = unquoted_words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let rated = i
                    .checked_sub(1)
                    .and_then(|j| unquoted_words.get(j))
                    .is_some_and(|p| RATE_WORDS.contains(&p.as_str()));
                if rated { String::new() } else { w.clone() }
            })
            .collect();
        // A word of the tool's own name says which tool: it names a parameter only as written
        // ("new customer" names `create_customer`, not its `customData`).
        let tool_words = words(&spec.name);
        // The words an allowed value may be named by: the request's, then the codes of the
        // currencies it names by name or sign, in its order ("250 pounds to yen" → `gbp`,
        // `jpy`, for an enum of ISO codes).
        let vw: Vec<String> = qw
            .iter()
            .cloned()
            .chain(crate::kinds::named(
                crate::kinds::Kind::Currency { upper: false },
                query,
            ))
            .collect();
        let vw_listed = without_opening_verb(query, &vw);
        Said {
            query,
            words: qw,
            unquoted: unquoted_words,
            unrated: unrated_words,
            tool_words,
            vw,
            vw_listed,
        }
    }
}

/// Whether parameter `name` stays for what the request's words say of it: it is required,
/// the request names it, or names a value of it (a choice, a value of its kind, a pattern,
/// code of its kind). Records flags and promotions in `report`.
fn stays_for_words(
    spec: &ToolSpec,
    props: &Map<String, Value>,
    (name, p): (&String, &Value),
    is_required: bool,
    said: &Said<'_>,
    report: &mut Narrowing,
) -> bool {
    let query_words = &said.words;
    if !is_required && boolean_param(p) {
        let flag = flag_in_query(query_words, name);
        if let Some(v) = flag {
            report.flags.push((name.clone(), v));
        }
        return flag.is_some();
    }
    let values = choices(name, p, &spec.description, props);
    // "rename" says the new name is given: the parameter must be set.
    let renames = renamed(query_words, name);
    if !is_required && renames {
        report.promoted.push(name.clone());
    }
    let rate_named = name_words(name)
        .iter()
        .any(|w| RATE_WORDS.contains(&w.as_str()));
    let heard = if rate_named {
        &said.unquoted
    } else {
        &said.unrated
    };
    let name_mentioned = mentions(heard, &name.replace('_', " "))
        || names_loosely(heard, name, &said.tool_words)
        || renames;
    let value_words = if enum_values(p).is_none() {
        &said.vw_listed
    } else {
        &said.vw
    };
    let doc = documented(props, spec, name);
    let value_mentioned = values.as_ref().is_some_and(|v| {
        !mentioned_values(value_words, v, doc, &spec.name, &spec.description, 1)
            .0
            .is_empty()
    });
    // A colour, a language or a country the request names is the value of a parameter that
    // takes that kind ("new label waiting-on, orange"): values of a known kind name their
    // parameter.
    let kind_named = values.is_none()
        && crate::kinds::kind_of(name, doc)
            .is_some_and(|k| !crate::kinds::named(k, said.query).is_empty());
    let named_by_value = value_mentioned || kind_named || written_for(name, doc, said.query);
    if !is_required && named_by_value && !renames {
        report.promoted.push(name.clone());
    }
    is_required || name_mentioned || named_by_value
}

/// Whether the request writes what parameter `name` takes: a pattern it describes ("keys
/// starting with user:"; "all" alone is what an optional pattern's default already says), or
/// code of the parameter's kind ("run SELECT count(*) FROM users"), or JSON for a JSON text.
fn written_for(name: &str, doc: &str, query: &str) -> bool {
    let glob_named = crate::globs::takes_glob(name, doc)
        && crate::globs::described(query).iter().any(|g| g != "*");
    glob_named
        || (crate::code::takes_sql(name, doc) && !crate::code::sql_statements(query).is_empty())
        || (crate::code::takes_code(name, doc) && !crate::code::written(query).is_empty())
        || (crate::code::takes_json(name, doc) && !crate::code::json_written(query).is_empty())
}

/// Keeps (and makes required) each parameter the request gives a number for: a cap ("the
/// first 3000 characters"), a count of the tool's own things ("list 80 followers"), a bound
/// ("under 60" → `maxPrice`), a count in words ("with a pet" → `pets`), a month ("March" →
/// `month`), a number told apart by its neighbours, a number stated with a unit ("takes 10
/// seconds" → `duration` in seconds), a side of a size, a number written right after the
/// parameter's name ("page 2, 50 per page"). Returns the parameters given a quantity of
/// their unit or a side of a size: those take no other number.
fn keep_given_numbers(
    spec: &ToolSpec,
    props: &Map<String, Value>,
    query: &str,
    required: &[&str],
    (stays, report): (&mut [bool], &mut Narrowing),
) -> Vec<String> {
    let (words, spans) = (words_at(query), numbers_at(query));
    let attached = |k: &str| attached_numbers(k, &words, &spans);
    let caps = crate::caps::capped(props, query, attached);
    let things = crate::caps::capped_things(props, query, &spec.name, attached);
    let bounds = crate::caps::bounded(props, query, attached);
    let mut counted = crate::caps::counted_in_words(props, query);
    counted.extend(crate::periods::month_numbers(props, query));
    counted.extend(distinguished_numbers(props, query));
    let units: Vec<(String, Value)> = crate::units::placed(props, query)
        .into_iter()
        .map(|(k, v, _)| (k, v))
        .collect();
    let sizes = crate::units::sized(props, query);
    let measured: Vec<String> = units.iter().chain(&sizes).map(|(k, _)| k.clone()).collect();
    let numbered = props
        .iter()
        .filter(|(k, p)| free_number(p) && number_after_name(k, &words, &spans))
        .map(|(k, _)| (k.clone(), Value::Null));
    for (name, _) in caps
        .into_iter()
        .chain(things)
        .chain(bounds)
        .chain(counted)
        .chain(units)
        .chain(sizes)
        .chain(numbered)
    {
        // A parameter that stays optional for its name ("the next 8 hours" for `hours`) is made
        // required too: the request gives its value, and the model left it out.
        if let Some(i) = props.keys().position(|k| *k == name)
            && let Some(s) = stays.get_mut(i)
            && (!*s || (!required.contains(&name.as_str()) && !report.promoted.contains(&name)))
        {
            *s = true;
            report.promoted.push(name);
        }
    }
    measured
}

/// The numbers the request states that may be counts: not a quantity of a unit ("the last 24
/// hours": the unit pass places it, it is no count for a unitless `limit`), not part of a
/// name ("Sprint 14", "the Rust 2024 edition"), not the year of a period ("Q1 2025", "since
/// 2023"), not a part of a date a staying date parameter takes ("on 2024-03-15" is no
/// `PageSize` 2024), not a phone number written the international way (`+442071838750`), not
/// a number a staying parameter's cue names as its value ("host 10084" for `hostids`). Each
/// once.
fn stated_numbers(props: &Map<String, Value>, query: &str, stays: &[bool]) -> Vec<Value> {
    let with_unit = crate::units::with_unit(query);
    let date_taken = props
        .iter()
        .zip(stays)
        .any(|((name, p), s)| *s && takes_date(name, p));
    let cued_values: Vec<String> = props
        .iter()
        .zip(stays)
        .filter(|(_, s)| **s)
        .flat_map(|((name, p), _)| {
            crate::cues::strong_values_named_by(&crate::cues::cue_words(name, described(p)), query)
        })
        .collect();
    let mut stated: Vec<Value> = Vec::new();
    for (start, end, n) in numbers_at(query) {
        if cued_values
            .iter()
            .any(|v| v.parse::<f64>().ok() == n.as_f64())
        {
            continue;
        }
        if (date_taken && in_date(query, start))
            || phone_number(query, start, end)
            || period_year(query, start, end)
        {
            continue;
        }
        let counted = !with_unit.iter().any(|u| n.as_f64() == Some(*u));
        if counted && !in_name(query, start) && !stated.iter().any(|s| s.as_f64() == n.as_f64()) {
            stated.push(n);
        }
    }
    stated
}

/// The parameters that stay, as they are given to the model. A number the query states that
/// no staying parameter can take belongs to an optional number parameter ("the last 20 lines"
/// → `tail`): those stay too, and the model chooses. Records the dropped ones in `report`.
fn kept_parameters(
    spec: &ToolSpec,
    props: &Map<String, Value>,
    stays: Vec<bool>,
    (stated, measured): (&[Value], &[String]),
    report: &mut Narrowing,
) -> Map<String, Value> {
    let numbers_unplaced = !stated.is_empty()
        && !props
            .iter()
            .zip(&stays)
            .any(|((k, p), s)| *s && free_number(p) && !measured.contains(k));
    let mut kept = Map::new();
    for ((name, p), stay) in props.iter().zip(stays) {
        // Only a parameter one of those numbers fits (a year is no `k` of at most 100), and
        // no quantity of a unit: a number the request states in a unit is placed above, so a
        // number without one is no time in milliseconds ("max 50 pages" is no `waitFor`).
        let unitless = !crate::units::measured(name, documented(props, spec, name));
        if !stay
            && numbers_unplaced
            && free_number(p)
            && unitless
            && stated.iter().any(|n| number_fits(p, n))
        {
            report.for_numbers.push(name.clone());
        } else if !stay {
            report.dropped.push(name.clone());
            continue;
        }
        // An optional number written the pydantic way (`anyOf: [integer, null]`) is kept as
        // its number, so that number grounding reads it.
        let unnulled = free_number(p)
            .then(|| crate::spans::without_null(p))
            .flatten();
        kept.insert(name.clone(), unnulled.unwrap_or_else(|| p.clone()));
    }
    kept
}

/// Shapes the kept parameters by what the request says of them: a list kept for a value the
/// request names takes at least one item (free, the model wrote `"hostids": []` for
/// "templates linked to host 10084"); a numbered code the request names by its gloss is the
/// value ("disable monitoring" → `status` 1 of "0=enabled, 1=disabled"); a flag the request
/// states takes the value it states.
fn settle_kept(kept: &mut Map<String, Value>, coded: Vec<(String, Vec<i64>)>, report: &Narrowing) {
    for name in &report.promoted {
        if let Some(p) = kept.get_mut(name) {
            at_least_one(p);
        }
    }
    for (name, codes) in coded {
        if let Some(p) = kept.get_mut(&name) {
            *p = only_codes(p, &codes);
        }
    }
    for (name, v) in &report.flags {
        if let Some(p) = kept.get_mut(name) {
            let mut m = Map::new();
            m.insert("type".into(), json!("boolean"));
            m.insert("enum".into(), json!([v]));
            if let Some(d) = p.get("description") {
                m.insert("description".into(), d.clone());
            }
            *p = Value::Object(m);
        }
    }
}

/// `spec` with `kept` as its parameters: required are the required ones, the promoted ones
/// and the flags the request states.
fn narrowed_spec(
    spec: &ToolSpec,
    kept: Map<String, Value>,
    required: &[&str],
    report: &Narrowing,
) -> ToolSpec {
    let mut out = spec.clone();
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    let kept_required: Vec<Value> = kept
        .keys()
        .filter(|k| {
            required.contains(&k.as_str())
                || report.promoted.contains(k)
                || report.flags.iter().any(|(f, _)| f == *k)
        })
        .map(|k| json!(k))
        .collect();
    root.insert("properties".into(), Value::Object(kept));
    root.insert("required".into(), Value::Array(kept_required));
    out.parameters = Value::Object(root);
    out
}

/// Keeps (and makes required) each number parameter, or list of them, whose documentation
/// glosses numbered codes ([`crate::listed::numbered_codes`]: "0=enabled, 1=disabled") when the
/// request says a gloss ("disable monitoring on host 10105", "item 45690 (float history)");
/// the parameters with the codes named.
fn keep_coded(
    props: &Map<String, Value>,
    spec: &ToolSpec,
    query: &str,
    required: &[&str],
    stays: &mut [bool],
    report: &mut Narrowing,
) -> Vec<(String, Vec<i64>)> {
    let unquoted = toolwright_catalog::values::without_quoted(query);
    // The request's opening verb is what a tool that reads does, not a state it filters by
    // ("open tickets" for `list_tickets` is no `status` 0=open): only a tool that changes
    // things is told a state by its verb ("disable monitoring" for `host_update`).
    let reads = toolwright_catalog::text::name_object(&spec.name)
        .is_none_or(|(a, _)| a == toolwright_catalog::text::Action::Read);
    let all = words(&unquoted);
    let said = if reads {
        without_opening_verb(&unquoted, &all)
    } else {
        all
    };
    let says = |gloss: &str| {
        let ws: Vec<String> = words(gloss)
            .into_iter()
            .filter(|w| w.len() >= 3 && !toolwright_catalog::text::is_stop_word(w))
            .collect();
        !ws.is_empty() && ws.iter().all(|g| said.iter().any(|w| same_word(w, g)))
    };
    let mut out = Vec::new();
    for (i, (name, p)) in props.iter().enumerate() {
        if !takes_codes(p) {
            continue;
        }
        let doc = crate::listed::documentation(name, p, &spec.description);
        let Some(codes) = crate::listed::numbered_codes(doc) else {
            continue;
        };
        let named: Vec<i64> = codes
            .iter()
            .filter(|(_, g)| says(g))
            .map(|(c, _)| *c)
            .collect();
        if named.is_empty() {
            continue;
        }
        if let Some(s) = stays.get_mut(i) {
            *s = true;
        }
        if !required.contains(&name.as_str()) && !report.promoted.contains(name) {
            report.promoted.push(name.clone());
        }
        out.push((name.clone(), named));
    }
    out
}

/// Whether `p` takes a number, or a list of them (a number or text each, as pydantic's
/// `list[int | str]`), alone or beside `null`.
fn takes_codes(p: &Value) -> bool {
    let unnulled = crate::spans::without_null(p);
    let p = unnulled.as_ref().unwrap_or(p);
    let typed = |v: &Value, t: &str| v.get("type").and_then(Value::as_str) == Some(t);
    let number = |v: &Value| {
        typed(v, "integer")
            || v.get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|x| typed(x, "integer")))
    };
    p.get("enum").is_none()
        && (number(p) || (typed(p, "array") && p.get("items").is_some_and(number)))
}

/// `p` (a number or a list of them, see [`takes_codes`]) restricted to `codes`; a list takes
/// at least one.
fn only_codes(p: &Value, codes: &[i64]) -> Value {
    let unnulled = crate::spans::without_null(p);
    let inner = unnulled.as_ref().unwrap_or(p);
    let description = inner.get("description").cloned();
    let number = json!({"type": "integer", "enum": codes});
    let mut out = if inner.get("type").and_then(Value::as_str) == Some("array") {
        json!({"type": "array", "items": number, "minItems": 1})
    } else {
        number
    };
    if let (Some(o), Some(d)) = (out.as_object_mut(), description) {
        o.insert("description".into(), d);
    }
    out
}

/// Gives an array schema (or the array of an optional one, `anyOf: [array, null]`) with no
/// `minItems` a `minItems` of 1.
fn at_least_one(p: &mut Value) {
    let array = |v: &Value| v.get("type").and_then(Value::as_str) == Some("array");
    let alts: Vec<&mut Value> = match p.get_mut("anyOf").and_then(Value::as_array_mut) {
        Some(alts) => alts.iter_mut().collect(),
        None => vec![p],
    };
    for a in alts {
        if array(a)
            && let Some(o) = a.as_object_mut()
        {
            o.entry("minItems").or_insert(json!(1));
        }
    }
}

/// `spec` (narrowed and grounded) with each optional string parameter that grounding left
/// exactly one text, which no other parameter is offered, made required; the names of those
/// parameters. Such a text is one the request gives (the namespace "in namespace payments",
/// the customer `cus_N4k2`): left optional, a small model often leaves it out (16 of the 22
/// offered values the model omitted on the held-out sets had one value). Parameters offered the
/// same text stay optional: the model chooses. Numbers stay optional: a number no other
/// parameter takes is often a year or a model's version ("keyboards 2025" is no
/// `max_results`); forced, it was wrong or unexpected for 34 parameters of the six evaluation
/// sets and right for 26.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::ToolSpec;
/// use toolwright_local::narrow::require_given;
/// let s = ToolSpec::new("logs", "", json!({"type": "object", "properties": {
///     "namespace": {"type": "string", "enum": ["payments"]},
///     "pod": {"type": "string", "enum": ["api-1"]}, "container": {"type": "string", "enum": ["api-1"]},
///     "tail": {"type": "integer", "enum": [20]}}}));
/// let (g, made) = require_given(&s);
/// assert_eq!(made, ["namespace"]);
/// assert_eq!(g.parameters["required"], json!(["namespace"]));
/// ```
pub fn require_given(spec: &ToolSpec) -> (ToolSpec, Vec<String>) {
    let Some(props) = spec.parameters.get("properties").and_then(Value::as_object) else {
        return (spec.clone(), Vec::new());
    };
    let required = toolwright_catalog::schema::required(&spec.parameters);
    fn offered(p: &Value) -> &[Value] {
        p.get("enum")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
    let made: Vec<String> = props
        .iter()
        .filter(|(k, _)| !required.contains(k))
        .filter_map(|(k, p)| match offered(p) {
            [v @ Value::String(_)]
                if !props.iter().any(|(o, q)| o != k && offered(q).contains(v)) =>
            {
                Some(k.clone())
            }
            _ => None,
        })
        .collect();
    if made.is_empty() {
        return (spec.clone(), made);
    }
    let mut out = spec.clone();
    let mut all: Vec<Value> = required.iter().map(|r| json!(r)).collect();
    all.extend(made.iter().map(|m| json!(m)));
    if let Some(o) = out.parameters.as_object_mut() {
        o.insert("required".into(), Value::Array(all));
    }
    (out, made)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn currency() -> ToolSpec {
        ToolSpec::new(
            "convert_currency",
            "Convert.",
            json!({"type": "object", "properties": {
                "amount": {"type": "number"},
                "from_currency": {"$ref": "#/$defs/C"},
                "to_currency": {"$ref": "#/$defs/C"}},
              "required": ["amount", "from_currency", "to_currency"],
              "$defs": {"C": {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY"]}}}),
        )
    }

    #[test]
    fn optional_dates_the_request_writes_are_kept() {
        let t = ToolSpec::new(
            "search",
            "Search news.",
            json!({"type": "object", "properties": {
                "query": {"type": "string"},
                "start_date": {"type": "string", "description": "Start date, YYYY-MM-DD"},
                "end_date": {"type": "string", "description": "End date, YYYY-MM-DD"},
                "country": {"type": "string"}},
              "required": ["query"]}),
        );
        let (s, r) = narrow_for_query(&t, "news on the merger between 2024-01-01 and 2024-03-31");
        assert_eq!(r.promoted, ["start_date", "end_date"]);
        assert!(s.parameters["properties"].get("country").is_none());
        // One date keeps one of them; none keeps neither.
        let (_, r) = narrow_for_query(&t, "news on the merger since 2024-01-01");
        assert_eq!(r.promoted.len(), 1);
        let (_, r) = narrow_for_query(&t, "news on the merger");
        assert!(r.promoted.is_empty());
    }

    #[test]
    fn enums_narrow_to_mentioned_values_when_enough_are_mentioned() {
        let (s, r) = narrow_for_query(&currency(), "Convert 250 GBP to JPY");
        assert_eq!(
            s.parameters["properties"]["from_currency"]["enum"],
            json!(["GBP", "JPY"])
        );
        assert_eq!(r.restricted.len(), 2);
        // One currency named for two parameters: no restriction.
        let (s, r) = narrow_for_query(&currency(), "Convert 100 to EUR");
        assert_eq!(
            s.parameters["properties"]["from_currency"]["enum"],
            json!(["USD", "EUR", "GBP", "JPY"])
        );
        assert!(r.restricted.is_empty());
        // Currencies named by name or sign count, in the request's order.
        let (s, _) = narrow_for_query(&currency(), "convert 250 pounds to yen");
        assert_eq!(
            s.parameters["properties"]["from_currency"]["enum"],
            json!(["GBP", "JPY"])
        );
        // ... but the one given an amount is the source, wherever it stands.
        for q in ["how many dollars is ¥5000", "how many dollars is 5000 yen"] {
            let (s, _) = narrow_for_query(&currency(), q);
            assert_eq!(
                s.parameters["properties"]["to_currency"]["enum"],
                json!(["JPY", "USD"]),
                "{q}"
            );
        }
    }

    #[test]
    fn a_person_named_keeps_both_parts_of_the_name_and_choices_stay_choices() {
        // Set L's Nimble and InvoiceOcean (read, 2026-12-07).
        let contact = ToolSpec::new(
            "create_contact",
            "Create a new contact (person or company).\n\nArgs:\n    record_type: 'person' \
             or 'company'.\n    first_name: First name.\n",
            json!({"type": "object", "properties": {
                "record_type": {"type": "string"},
                "first_name": {"type": "string", "default": ""},
                "last_name": {"type": "string", "default": ""},
                "email": {"type": "string", "default": ""}},
              "required": ["record_type"]}),
        );
        let (s, r) = narrow_for_query(&contact, "new contact: Diego Ramos, diego.r@gmail.com");
        let props = &s.parameters["properties"];
        assert!(props.get("first_name").is_some() && props.get("last_name").is_some());
        assert!(r.promoted.contains(&"last_name".to_string()));
        assert_eq!(props["record_type"]["enum"], json!(["person", "company"]));
        let (g, _) =
            crate::spans::ground_strings(&s, "new contact: Diego Ramos, diego.r@gmail.com", true);
        assert_eq!(
            g.parameters["properties"]["first_name"]["enum"],
            json!(["Diego"])
        );
        assert_eq!(
            g.parameters["properties"]["last_name"]["enum"],
            json!(["Ramos"])
        );
        // No person named: the parts stay out.
        let (s, _) = narrow_for_query(&contact, "new contact for acme corp, info@acme.com");
        assert!(s.parameters["properties"].get("first_name").is_none());
    }

    #[test]
    fn a_quote_goes_to_the_text_it_is_introduced_for_not_to_an_identifier() {
        // Set K's wallabag, Pinterest and Mastodon (read, 2026-12-07).
        let opt = |d: &str| json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": d});
        let media = ToolSpec::new(
            "media_post",
            "Upload a media file.",
            json!({"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Absolute path to the media file."},
                "description": opt("Alt text / accessibility description for the media.")},
              "required": ["file_path"]}),
        );
        let q = "upload /home/ana/storks.jpg to mastodon with alt text 'Storks on a nest'";
        let (s, _) = narrow_for_query(&media, q);
        let (g, _) = crate::spans::ground_strings(&s, q, true);
        assert_eq!(
            g.parameters["properties"]["description"]["enum"],
            json!(["Storks on a nest"])
        );
        let pin = ToolSpec::new(
            "update_pin",
            "Update metadata on an existing pin.",
            json!({"type": "object", "properties": {
                "pin_id": {"type": "string", "title": "Pin Id"},
                "title": opt(""),
                "link": opt("")},
              "required": ["pin_id"]}),
        );
        let q = "rename pin 1122334455 to 'Best rye bread'";
        let (s, _) = narrow_for_query(&pin, q);
        let (g, _) = crate::spans::ground_strings(&s, q, true);
        assert_eq!(
            g.parameters["properties"]["title"]["enum"],
            json!(["Best rye bread"])
        );
    }

    #[test]
    fn a_number_next_to_the_word_that_tells_a_parameter_apart_is_its_own() {
        let props = json!({
            "amount_off": {"type": "integer"},
            "duration_in_months": {"type": "integer"},
            "max_redemptions": {"type": "integer"}});
        let props = props.as_object().unwrap();
        let q = "stripe coupon LOYAL10: $10 off every month for 3 months";
        assert_eq!(
            distinguished_numbers(props, q),
            [
                ("amount_off".to_string(), json!(10)),
                ("duration_in_months".to_string(), json!(3))
            ]
        );
        // One parameter alone needs no telling apart.
        let one = json!({"limit": {"type": "integer"}});
        assert!(distinguished_numbers(one.as_object().unwrap(), "the last 5 months").is_empty());
    }

    #[test]
    fn a_renaming_verb_keeps_and_requires_the_name() {
        let update = ToolSpec::new(
            "update_task",
            "Update a task.",
            json!({"type": "object", "properties": {
                "taskId": {"type": "string"},
                "title": {"type": "string"},
                "description": {"type": "string"}},
              "required": ["taskId"]}),
        );
        let (s, r) = narrow_for_query(&update, "retitle task-5 to 'Write API docs'");
        assert_eq!(r.promoted, ["title"]);
        assert_eq!(r.dropped, ["description"]);
        assert_eq!(s.parameters["required"], json!(["taskId", "title"]));
        let (_, r) = narrow_for_query(&update, "mark task-5 as done");
        assert_eq!(r.dropped, ["title", "description"]);
    }

    #[test]
    fn a_cap_keeps_and_feeds_the_parameter_that_takes_it() {
        let fetch = ToolSpec::new(
            "fetch_content",
            "Fetch a web page.",
            json!({"type": "object", "properties": {
                "url": {"type": "string"},
                "start_index": {"type": "integer", "description": "Character to start at"},
                "max_length": {"type": "integer", "description": "Maximum number of characters"}},
              "required": ["url"]}),
        );
        let q = "open https://www.gov.uk/renew and give me the first 3000 characters";
        let (s, r) = narrow_for_query(&fetch, q);
        let props = s.parameters["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), ["url", "max_length"]);
        assert_eq!(r.promoted, ["max_length"]);
        assert_eq!(s.parameters["required"], json!(["url", "max_length"]));
        let (g, _) = ground_numbers(&s, q);
        assert_eq!(
            g.parameters["properties"]["max_length"]["enum"],
            json!([3000])
        );
        // Without a cap word the number is not a cap.
        let (_, r) = narrow_for_query(&fetch, "open https://www.gov.uk/renew at 3000");
        assert!(r.promoted.is_empty());
    }

    #[test]
    fn the_opening_verb_names_no_listed_choice() {
        let buy = ToolSpec::new(
            "buy_number",
            "Buy a phone number.",
            json!({"type": "object", "properties": {
                "AreaCode": {"type": "string"},
                "SmsMethod": {"type": "string", "description":
                    "The HTTP method to call `sms_url` with. Can be: `GET` or `POST`."}}}),
        );
        let (_, r) = narrow_for_query(&buy, "Get us another local number in the 415 area code");
        assert!(r.dropped.contains(&"SmsMethod".to_string()), "{r:?}");
        let (_, r) = narrow_for_query(&buy, "buy a number, sms method GET");
        assert!(!r.dropped.contains(&"SmsMethod".to_string()), "{r:?}");
        // A schema's enum keeps it: "close issue 42" names `closed`.
        let update = ToolSpec::new(
            "update_issue",
            "Update an issue.",
            json!({"type": "object", "properties": {
                "issue_number": {"type": "integer"},
                "state": {"type": "string", "enum": ["open", "closed"]}},
              "required": ["issue_number"]}),
        );
        let (_, r) = narrow_for_query(&update, "close issue 42");
        assert_eq!(r.promoted, ["state"]);
    }

    #[test]
    fn a_date_after_since_keeps_the_start_of_a_range() {
        let props = json!({"type": "object", "properties": {
            "to_date": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
            "page": {"type": "integer"},
            "from_date": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}}});
        let list = ToolSpec::new("list_transactions", "List account transactions.", props);
        let (_, r) = narrow_for_query(&list, "show my account transactions since 2026-05-01");
        assert_eq!(r.promoted, ["from_date"]);
        let (_, r) = narrow_for_query(&list, "show my account transactions until 2026-05-01");
        assert_eq!(r.promoted, ["to_date"]);
        // A name's words said loosely ("created … to") give way to the marked side.
        let shipments = ToolSpec::new(
            "list_shipments",
            "List shipments.",
            json!({"type": "object", "properties": {
                "created_at_to": {"type": "string"}, "created_at_from": {"type": "string"}}}),
        );
        let (n, _) = narrow_for_query(
            &shipments,
            "shipments going to Japan created since 2026-06-01",
        );
        let kept: Vec<&String> = n.parameters["properties"]
            .as_object()
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        assert_eq!(kept, ["created_at_from"]);
    }

    #[test]
    fn a_period_keeps_both_sides_of_the_one_dated_range() {
        let report = ToolSpec::new(
            "shipment_status",
            "Shipments by status.",
            json!({"type": "object", "properties": {
                "from_date": {"type": "string"}, "to_date": {"type": "string"},
                "page": {"type": "integer"}}}),
        );
        let (_, r) = narrow_for_query(&report, "shipments by status for Q2 2026");
        assert_eq!(r.promoted, ["from_date", "to_date"]);
    }

    #[test]
    fn a_size_per_page_is_no_page() {
        let stock = ToolSpec::new(
            "reports_stock",
            "Stock report.",
            json!({"type": "object", "properties": {
                "perPage": {"type": "integer"}, "page": {"type": "integer"}}}),
        );
        let (n, _) = narrow_for_query(&stock, "full stock report, 100 per page");
        let (g, _) = ground_numbers(&n, "full stock report, 100 per page");
        assert_eq!(g.parameters["properties"]["perPage"]["enum"], json!([100]));
        assert!(g.parameters["properties"].get("page").is_none());
        let (n, _) = narrow_for_query(&stock, "page 3 of the stock report");
        let (g, _) = ground_numbers(&n, "page 3 of the stock report");
        assert_eq!(g.parameters["properties"]["page"]["enum"], json!([3]));
    }

    #[test]
    fn a_cap_is_not_claimed_by_a_parameter_that_cannot_take_it() {
        // "the latest 25 orders" attaches 25 to `order` by its name, an enum of directions.
        let orders = ToolSpec::new(
            "orders_list",
            "List orders.",
            json!({"type": "object", "properties": {
                "perPage": {"type": "integer"}, "page": {"type": "integer"},
                "product": {"type": "integer"},
                "order": {"type": "string", "enum": ["asc", "desc"]}}}),
        );
        let (n, r) = narrow_for_query(&orders, "list the latest 25 orders");
        assert_eq!(r.promoted, ["perPage"]);
        assert!(n.parameters["properties"].get("product").is_none());
        let (_, r) = narrow_for_query(&orders, "show the 10 most recent orders");
        assert_eq!(r.promoted, ["perPage"]);
    }

    #[test]
    fn an_optional_id_list_is_kept_for_the_value_its_head_names() {
        // Zabbix's `template_get`: "host 10084" is for `hostids` (a glued id suffix), not a
        // number for `limit` and `offset`.
        let get = ToolSpec::new(
            "template_get",
            "Get templates.",
            json!({"type": "object", "properties": {
                "hostids": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
                "limit": {"type": "integer"}, "offset": {"type": "integer"}}}),
        );
        let (n, r) = narrow_for_query(&get, "which templates are linked to host 10084?");
        assert_eq!(r.promoted, ["hostids"]);
        assert!(n.parameters["properties"].get("limit").is_none(), "{n:?}");
        // And it takes at least one: the model had written `[]`.
        assert_eq!(
            n.parameters["properties"]["hostids"]["anyOf"][0]["minItems"],
            json!(1)
        );
    }

    #[test]
    fn optional_numbers_written_the_pydantic_way_are_numbers() {
        // Domoticz's `toggle_switch`: `idx` is `anyOf: [integer, null]`.
        let toggle = ToolSpec::new(
            "toggle_switch",
            "Toggle device.",
            json!({"type": "object", "properties": {
                "idx": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                        "default": null, "description": "Numeric idx"},
                "name": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}}}),
        );
        let q = "flip the hallway light, device 23";
        let (n, r) = narrow_for_query(&toggle, q);
        assert_eq!(r.for_numbers, ["idx"]);
        assert_eq!(n.parameters["properties"]["idx"]["type"], json!("integer"));
        let (g, _) = ground_numbers(&n, q);
        assert_eq!(g.parameters["properties"]["idx"]["enum"], json!([23]));
        // And a quoted name is the thing's name.
        let (_, r) = narrow_for_query(&toggle, "toggle the 'Porch Lamp'");
        assert_eq!(r.promoted, ["name"]);
    }

    #[test]
    fn a_number_right_after_a_parameters_name_makes_it_required() {
        let items = ToolSpec::new(
            "list-items",
            "List items.",
            json!({"type": "object", "properties": {
                "status": {"type": "string"}, "page": {"type": "integer"},
                "limit": {"type": "integer"}}}),
        );
        let (_, r) = narrow_for_query(&items, "show resolved items, page 2, 50 per page");
        assert!(r.promoted.contains(&"page".to_string()), "{r:?}");
        let (_, r) = narrow_for_query(&items, "show the items, 50 per page");
        assert!(!r.promoted.contains(&"page".to_string()), "{r:?}");
        assert!(!number_after_name(
            "last_id",
            &words_at("the last 10 occurrences"),
            &numbers_at("the last 10 occurrences")
        ));
    }

    #[test]
    fn a_parameter_given_a_quantity_takes_no_other_number() {
        let discover = ToolSpec::new(
            "discover_by_genre_tool",
            "Discover films by genre.",
            json!({"type": "object", "properties": {
                "genre": {"type": "string"},
                "within_days": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null},
                "limit": {"default": 10, "type": "integer"}},
                "required": ["genre"]}),
        );
        let (_, r) = narrow_for_query(
            &discover,
            "animation films from the last 180 days, 5 of them",
        );
        assert!(r.promoted.contains(&"within_days".to_string()), "{r:?}");
        assert_eq!(r.for_numbers, ["limit"]);
    }

    #[test]
    fn one_of_a_unit_written_without_a_number_is_grounded() {
        let recent = ToolSpec::new(
            "get_recent_messages",
            "Recent messages.",
            json!({"type": "object", "properties": {"hours": {"type": "number"}}}),
        );
        let q = "any messages with attachments from the past day?";
        let (n, _) = narrow_for_query(&recent, q);
        let (g, report) = ground_numbers(&n, q);
        assert_eq!(report, ["hours"]);
        assert_eq!(g.parameters["properties"]["hours"]["enum"], json!([24]));
    }

    #[test]
    fn a_numbered_code_named_by_its_gloss_is_the_value() {
        // Zabbix: `status` "0=enabled, 1=disabled", `severities` glossed in the docstring.
        let opt = |t: Value| json!({"anyOf": [t, {"type": "null"}], "default": null});
        let update = ToolSpec::new(
            "host_update",
            "Update a host.\n\nArgs:\n    severities: 0 - not classified, 1 - information, \
             2 - warning, 3 - average, 4 - high, 5 - disaster.",
            json!({"type": "object", "properties": {
                "hostid": {"type": "string"},
                "status": {"anyOf": [{"type": "integer"}, {"type": "null"}],
                           "description": "0=enabled, 1=disabled."},
                "severities": opt(json!({"type": "array",
                    "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}))},
                "required": ["hostid"]}),
        );
        let (n, r) = narrow_for_query(&update, "disable monitoring on host 10105");
        assert_eq!(r.promoted, ["status"]);
        assert_eq!(n.parameters["properties"]["status"]["enum"], json!([1]));
        assert!(n.parameters["properties"].get("severities").is_none());
        let (n, _) = narrow_for_query(&update, "any disaster or high severity problems?");
        let sev = &n.parameters["properties"]["severities"];
        assert_eq!(sev["items"]["enum"], json!([4, 5]));
        assert_eq!(sev["minItems"], json!(1));
        // Nothing glossed is said: nothing kept.
        let (n, _) = narrow_for_query(&update, "rename host 10105 to web-2");
        assert!(n.parameters["properties"].get("status").is_none());
        // A tool that reads takes its opening verb for what it does.
        let list = ToolSpec::new(
            "list_tickets",
            "List tickets.",
            json!({"type": "object", "properties": {
                "status": {"type": "integer", "description": "0=open, 1=archived"}}}),
        );
        let (n, _) = narrow_for_query(&list, "archive the tickets of today");
        assert!(n.parameters["properties"].get("status").is_none());
        let (n, _) = narrow_for_query(&list, "show archived tickets");
        assert_eq!(n.parameters["properties"]["status"]["enum"], json!([1]));
    }

    #[test]
    fn a_filter_is_set_to_an_example_value_the_request_names() {
        let items = ToolSpec::new(
            "list_items",
            "List error items.",
            json!({"type": "object", "properties": {
                "status": {"type": "string", "description":
                    "Filter by item status (e.g., 'active', 'resolved', 'muted') (default: 'active')"},
                "query": {"type": "string", "description": "Search text (e.g. 'timeout', 'oom')"}}}),
        );
        let (n, r) = narrow_for_query(&items, "show resolved items");
        assert_eq!(r.promoted, ["status"]);
        assert_eq!(
            n.parameters["properties"]["status"]["enum"],
            json!(["resolved"])
        );
        // The quoted search text still gets its parameter beside the chosen filter.
        let env = ToolSpec::new(
            "list_items",
            "List error items.",
            json!({"type": "object", "properties": {
                "environment": {"type": "string", "description":
                    "Filter by environment (e.g., 'production', 'staging')"},
                "query": {"type": "string", "description": "Search query to filter items by title"}}}),
        );
        let (_, r) = narrow_for_query(
            &env,
            "search for items mentioning 'TimeoutError' in production",
        );
        assert!(r.promoted.contains(&"query".to_string()), "{r:?}");
        // Another value stays the model's to write, and a search text's examples are shapes.
        let (_, r) = narrow_for_query(&items, "show items about timeout errors");
        assert!(r.promoted.is_empty(), "{r:?}");
    }

    #[test]
    fn parameters_a_description_lists_are_no_choices() {
        let buy = ToolSpec::new(
            "buy_number",
            "Buy a phone number.",
            json!({"type": "object", "properties": {
                "AreaCode": {"type": "string", "description":
                    "The desired area code. You must provide an `area_code` or a `phone_number`."},
                "PhoneNumber": {"type": "string"}}}),
        );
        let (s, r) = narrow_for_query(&buy, "another local number in the 415 area code");
        assert!(r.restricted.is_empty(), "{r:?}");
        assert!(s.parameters["properties"]["AreaCode"].get("enum").is_none());
        assert!(same_name("area_code", "AreaCode"));
        assert!(!same_name("area", "AreaCode"));
        // A parameter's own name among values that name no parameter is a value.
        let update = ToolSpec::new(
            "update_transaction",
            "Update a transaction.\n\nArgs:\n    cleared: \"cleared\", \"uncleared\", or \"reconciled\".",
            json!({"type": "object", "properties": {
                "transaction_id": {"type": "string"},
                "cleared": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                "required": ["transaction_id"]}),
        );
        let (s, _) = narrow_for_query(&update, "mark transaction 7e57 as cleared");
        assert_eq!(
            s.parameters["properties"]["cleared"]["enum"],
            json!(["cleared"])
        );
    }

    #[test]
    fn a_date_a_date_parameter_takes_states_no_count() {
        let list = ToolSpec::new(
            "list_messages",
            "List messages.",
            json!({"type": "object", "properties": {
                "To": {"type": "string"},
                "DateSent": {"type": "string", "description": "Filter by sent date, YYYY-MM-DD"},
                "PageSize": {"type": "integer"}},
              "required": ["To"]}),
        );
        let (_, r) = narrow_for_query(&list, "texts we sent to +442071838750 on 2024-03-15");
        assert_eq!(r.promoted, ["DateSent"]);
        assert_eq!(r.dropped, ["PageSize"]);
        // Without a date parameter, the date's numbers are numbers the request states.
        let plain = ToolSpec::new(
            "list_messages",
            "List messages.",
            json!({"type": "object", "properties": {
                "To": {"type": "string"}, "PageSize": {"type": "integer"}},
              "required": ["To"]}),
        );
        let (_, r) = narrow_for_query(&plain, "texts we sent to +442071838750 on 2024-03-15");
        assert_eq!(r.for_numbers, ["PageSize"]);
        // Nor is a phone number a count.
        let (_, r) = narrow_for_query(&plain, "texts we sent to +442071838750");
        assert_eq!(r.dropped, ["PageSize"]);
        // Nor the year of a period ("Q1 2025"), while a plain count still keeps it.
        let (_, r) = narrow_for_query(&plain, "texts we sent to +442071838750 in Q1 2025");
        assert_eq!(r.dropped, ["PageSize"]);
        let (_, r) = narrow_for_query(&plain, "2025 texts we sent to +442071838750");
        assert_eq!(r.for_numbers, ["PageSize"]);
    }

    #[test]
    fn numbers_do_not_keep_an_optional_array_of_numbers() {
        // Measured and dropped (session 60): kept for the request's numbers, an array of
        // identifiers such as a batch tool's `delete` took the ids of "set orders 300, 301 and
        // 302 to completed" — a destructive argument the request never asked for.
        let batch = ToolSpec::new(
            "orders_batch_update",
            "Create, update and delete orders in one request.",
            json!({"type": "object", "properties": {
                "update": {"type": "array", "items": {"type": "object"}},
                "delete": {"type": "array", "items": {"type": "integer"}}}}),
        );
        let (_, r) = narrow_for_query(
            &batch,
            "set orders 300, 301 and 302 to completed all at once",
        );
        assert_eq!(r.dropped, ["update", "delete"]);
    }

    #[test]
    fn a_number_no_staying_parameter_takes_keeps_the_optional_number_parameters() {
        let read = ToolSpec::new(
            "read_text_file",
            "Read a file.",
            json!({"type": "object", "properties": {
                "path": {"type": "string"},
                "head": {"type": "integer"},
                "tail": {"type": "integer"},
                "encoding": {"type": "string"}},
              "required": ["path"]}),
        );
        let (s, r) = narrow_for_query(&read, "Print the last 20 lines of /var/log/app.log");
        let props = s.parameters["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), ["path", "head", "tail"]);
        assert_eq!(r.for_numbers, ["head", "tail"]);
        assert_eq!(r.dropped, ["encoding"]);
        assert!(
            r.describe("read_text_file")
                .unwrap()
                .contains("kept head, tail")
        );
        // No number: they go.
        let (_, r) = narrow_for_query(&read, "show me /var/log/app.log");
        assert_eq!(r.dropped, ["head", "tail", "encoding"]);
        // A staying number parameter takes the number: the optional ones go.
        let issue = ToolSpec::new(
            "get_issue",
            "Get an issue.",
            json!({"type": "object", "properties": {
                "number": {"type": "integer"}, "per_page": {"type": "integer"}},
              "required": ["number"]}),
        );
        let (_, r) = narrow_for_query(&issue, "show issue 17");
        assert_eq!(r.dropped, ["per_page"]);
        assert!(r.for_numbers.is_empty());
    }

    #[test]
    fn a_stray_number_keeps_no_count_when_it_is_a_name_an_id_or_no_duration() {
        let search = ToolSpec::new(
            "web_search",
            "Search the web.",
            json!({"type": "object", "properties": {
                "query": {"type": "string"}, "numResults": {"type": "number"},
                "project_id": {"type": "string"}, "delay": {"type": "number"}},
              "required": ["query"]}),
        );
        let kept = |q: &str| {
            let (n, _) = narrow_for_query(&search, q);
            let props = n.parameters["properties"].as_object().unwrap().clone();
            props.keys().cloned().collect::<Vec<_>>()
        };
        // A number in a name, in an id, or for a span of time the request states none of.
        assert_eq!(
            kept("search the web for news about the Rust 2024 edition"),
            ["query"]
        );
        assert_eq!(
            kept("search project 4af1c2d0-1111-4c3e-9f00-aa11bb22cc33"),
            ["query", "project_id"]
        );
        assert_eq!(
            kept("search the web for rust news, give me 5"),
            ["query", "numResults"]
        );
        assert_eq!(
            numbers_at("project 4af1c2d0-1111-4c3e-9f00-aa11bb22cc33"),
            vec![]
        );
        assert_eq!(numbers_at("chat 19:meeting_NjQ2ZTI3@thread.v2"), vec![]);
        assert_eq!(
            numbers_at("at 19:30").len(),
            2,
            "a clock time stays numbers"
        );
        assert_eq!(
            numbers_at("on 2026-12-10").len(),
            3,
            "a date's parts stay numbers"
        );
    }

    #[test]
    fn a_name_inside_a_quoted_value_does_not_keep_its_parameter() {
        let task = ToolSpec::new(
            "create_task",
            "Create a task.",
            json!({"type": "object", "properties": {
                "name": {"type": "string"}, "notes": {"type": "string"}},
              "required": ["name"]}),
        );
        let (_, r) = narrow_for_query(&task, "create a task \"Write release notes\"");
        assert_eq!(r.dropped, ["notes"]);
        let (_, r) = narrow_for_query(&task, "create a task \"Ship\" with notes about the launch");
        assert!(r.dropped.is_empty());
    }

    #[test]
    fn a_value_is_named_by_its_forms_and_by_the_last_step_of_its_path() {
        assert!(same_word("cite", "citers") && same_word("hour", "hourly"));
        assert!(same_word("upgrade", "upgrades") && same_word("sort", "sorted"));
        // A word that only begins a value does not name it.
        assert!(!same_word("app", "apple"));
        let docs = ToolSpec::new(
            "search_docs",
            "Search the SDK documentation.",
            json!({"type": "object", "properties": {"query": {"type": "string"}, "guide": {
                "type": "string", "enum": ["python", "apple", "python/django", "javascript/react"]}},
                "required": ["query"]}),
        );
        let (n, _) = narrow_for_query(&docs, "how do I set up the SDK for a Django app?");
        assert_eq!(
            n.parameters["properties"]["guide"]["enum"],
            json!(["python/django"])
        );
    }

    #[test]
    fn a_quantity_with_a_unit_keeps_no_unitless_count() {
        let search = ToolSpec::new(
            "search_issues",
            "Search for issues.",
            json!({"type": "object", "properties": {
                "query": {"type": "string"}, "limit": {"type": "integer"}}}),
        );
        let (n, _) = narrow_for_query(&search, "unresolved issues from the last 24 hours");
        assert!(
            n.parameters["properties"].get("limit").is_none(),
            "{}",
            n.parameters
        );
        // A bare number still keeps it for the model to place.
        let (n, _) = narrow_for_query(&search, "unresolved issues, 24 of them");
        assert!(
            n.parameters["properties"].get("limit").is_some(),
            "{}",
            n.parameters
        );
    }

    #[test]
    fn unmentioned_optional_parameters_are_left_out() {
        let weather = ToolSpec::new(
            "get_weather",
            "Weather.",
            json!({"type": "object", "properties": {
                "city": {"type": "string"},
                "units": {"oneOf": [{"const": "celsius"}, {"const": "fahrenheit"}], "default": "celsius"}},
              "required": ["city"]}),
        );
        let (s, r) = narrow_for_query(&weather, "Is it raining in Tokyo?");
        assert!(s.parameters["properties"].get("units").is_none());
        assert_eq!(r.dropped, vec!["units".to_string()]);
        let (s, _) = narrow_for_query(&weather, "Weather in Tokyo in fahrenheit");
        assert!(s.parameters["properties"].get("units").is_some());
    }

    #[test]
    fn a_word_of_the_tool_name_names_a_parameter_only_as_written() {
        let customer = ToolSpec::new(
            "create_customer",
            "Create a customer.",
            json!({"type": "object", "properties": {
                "email": {"type": "string"},
                "customData": {"type": "object", "additionalProperties": {}}},
              "required": ["email"]}),
        );
        let (_, r) = narrow_for_query(&customer, "New customer: Maria, maria@lumen.io");
        assert_eq!(r.dropped, vec!["customData".to_string()]);
        let (_, r) = narrow_for_query(&customer, "new customer maria@lumen.io, custom data x=1");
        assert!(r.dropped.is_empty(), "{r:?}");
        let node = ToolSpec::new(
            "node_management",
            "Cordon or drain a node.",
            json!({"type": "object", "properties": {"nodeName": {"type": "string"}}}),
        );
        let (_, r) = narrow_for_query(&node, "cordon worker-node-2");
        assert!(r.dropped.is_empty(), "{r:?}");
    }

    #[test]
    fn optional_parameters_named_by_their_distinctive_words_are_kept() {
        let s = ToolSpec::new(
            "calc",
            "Calc.",
            json!({"type": "object", "properties": {
                "gauge_pressure": {"type": "number"},
                "atm_pressure": {"type": "number"},
                "acceleration": {"type": "number"},
                "return_type": {"type": "string"},
                "unit": {"type": "string"},
                "initial_velocity": {"type": "number"}},
              "required": ["gauge_pressure"]}),
        );
        let (n, r) = narrow_for_query(
            &s,
            "Gauge pressure 2 atm, atmospheric pressure 1 atm, acceleeration of 9.8, final velocity. Return a dict.",
        );
        let props = n.parameters["properties"].as_object().unwrap();
        assert_eq!(
            props.keys().collect::<Vec<_>>(),
            vec![
                "gauge_pressure",
                "atm_pressure",
                "acceleration",
                "return_type"
            ]
        );
        assert_eq!(
            r.dropped,
            vec!["unit".to_string(), "initial_velocity".to_string()]
        );
        assert!(one_edit("acceleration", "acceleeration"));
        assert!(!one_edit("acceleration", "accumulation"));
        assert_eq!(name_words("returnType_x"), vec!["return", "type", "x"]);
        assert_eq!(name_words("side12b"), vec!["side", "12", "b"]);
    }

    #[test]
    fn optional_flags_the_query_states_take_the_value_it_states() {
        let repo = ToolSpec::new(
            "create_repository",
            "Create a repository.",
            json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "private": {"type": "boolean"},
                "autoInit": {"type": "boolean", "description": "Initialize with README.md"},
                "initialize_with_readme": {"type": ["boolean", "null"]},
                "draft": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
                "includeImage": {"type": "boolean"},
                "is_minor_edit": {"type": "boolean"}},
              "required": ["name"]}),
        );
        let (s, r) = narrow_for_query(
            &repo,
            "a new private repo 'dotfiles', initialized with a README, including an image",
        );
        let props = s.parameters["properties"].as_object().unwrap();
        assert_eq!(
            props.keys().collect::<Vec<_>>(),
            [
                "name",
                "private",
                "autoInit",
                "initialize_with_readme",
                "includeImage"
            ]
        );
        assert_eq!(props["autoInit"]["enum"], json!([true]));
        assert_eq!(props["initialize_with_readme"]["enum"], json!([true]));
        assert_eq!(
            s.parameters["required"],
            json!([
                "name",
                "private",
                "autoInit",
                "initialize_with_readme",
                "includeImage"
            ])
        );
        assert!(
            r.describe("create_repository")
                .unwrap()
                .contains("autoInit = true")
        );
        // Negated: the value is false.
        let (s, r) = narrow_for_query(&repo, "a repo 'x' without a README, and not as a draft");
        let props = s.parameters["properties"].as_object().unwrap();
        assert_eq!(props["initialize_with_readme"]["enum"], json!([false]));
        assert_eq!(props["draft"]["enum"], json!([false]));
        assert!(r.flags.contains(&("draft".to_string(), false)));
        let (s, _) = narrow_for_query(&repo, "don't include images in repo 'x'");
        assert_eq!(
            s.parameters["properties"]["includeImage"]["enum"],
            json!([false])
        );
        // Every word of the name must be there: "edit" alone is not a minor edit.
        let (_, r) = narrow_for_query(&repo, "edit the repo 'x'");
        assert!(r.dropped.contains(&"is_minor_edit".to_string()));
        let (_, r) = narrow_for_query(&repo, "a minor edit to repo 'x'");
        assert_eq!(r.flags, [("is_minor_edit".to_string(), true)]);
        // A negating verb before the flag's word.
        let (s, _) = narrow_for_query(&repo, "stop including images in repo 'x'");
        assert_eq!(
            s.parameters["properties"]["includeImage"]["enum"],
            json!([false])
        );
        // The verb of including and `only` need not be said.
        let strava = ToolSpec::new(
            "query_activities",
            "Query activities.",
            json!({"type": "object", "properties": {
                "include_laps": {"type": "boolean"}, "include_kudos": {"type": "boolean"},
                "starred_only": {"type": "boolean"}}}),
        );
        let (_, r) = narrow_for_query(&strava, "activity 118 with laps, skip the kudos");
        assert_eq!(
            r.flags,
            [
                ("include_laps".to_string(), true),
                ("include_kudos".to_string(), false)
            ]
        );
        let (_, r) = narrow_for_query(&strava, "show me my starred segments");
        assert_eq!(r.flags, [("starred_only".to_string(), true)]);
        assert_eq!(flag_words("autoInit"), ["init"]);
        assert_eq!(flag_words("convert_to_markdown"), ["markdown"]);
        assert_eq!(flag_words("use_display_names"), ["use", "display", "names"]);
        assert_eq!(stem("including"), stem("include"));
    }

    #[test]
    fn a_range_keeps_both_sides_and_each_takes_its_date() {
        let spec = ToolSpec::new(
            "search_candidates",
            "Search candidates.",
            json!({"type": "object", "properties": {
                "created_from": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "created_to": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "updated_from": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "updated_to": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "limit": {"type": "integer"}}}),
        );
        let q = "show me 25 candidates that were updated between 2025-06-01 and 2025-06-30";
        let (n, _) = narrow_for_query(&spec, q);
        let props = n.parameters["properties"].as_object().unwrap();
        assert!(props.contains_key("updated_from") && props.contains_key("updated_to"));
        assert!(!props.contains_key("created_from"), "{props:?}");
        let (g, _) = crate::spans::ground_strings(&n, q, true);
        let p = &g.parameters["properties"];
        assert_eq!(p["updated_from"]["enum"], json!(["2025-06-01"]));
        assert_eq!(p["updated_to"]["enum"], json!(["2025-06-30"]));
        // One date is no range: nothing is added.
        let (n, _) = narrow_for_query(&spec, "candidates updated to 2025-06-30 or later");
        assert!(
            !n.parameters["properties"]
                .as_object()
                .unwrap()
                .contains_key("created_to")
        );
    }

    #[test]
    fn a_flag_that_removes_needs_its_verb_by_its_word() {
        let spec = ToolSpec::new(
            "remove_queue_item",
            "Remove an item from the download queue.",
            json!({"type": "object", "properties": {
                "id": {"type": "integer"},
                "removeFromClient": {"type": "boolean"}},
              "required": ["id"]}),
        );
        let flag = |q: &str| narrow_for_query(&spec, q).1.flags;
        assert!(flag("drop item 12 from the queue but leave the torrent in the client").is_empty());
        assert_eq!(
            flag("drop item 12 from the queue and remove it from the client too"),
            [("removeFromClient".to_string(), true)]
        );
        assert_eq!(
            flag("drop item 12, don't remove it from the client"),
            [("removeFromClient".to_string(), false)]
        );
    }

    #[test]
    fn a_quote_keeps_the_one_search_query_nothing_else_takes() {
        let search = ToolSpec::new(
            "post_search",
            "Search pages by title.",
            json!({"type": "object", "properties": {
                "query": {"type": "string", "description": "Text to search for"},
                "page_size": {"type": "integer"}}}),
        );
        let (s, r) = narrow_for_query(&search, "find my Notion page called 'Q3 roadmap'");
        assert_eq!(s.parameters["required"], json!(["query"]));
        assert_eq!(r.promoted, ["query"]);
        // No quote, nothing kept.
        let (s, _) = narrow_for_query(&search, "find my Notion pages");
        assert!(s.parameters["properties"].get("query").is_none());
        // A text that matches part of a name, optional the pydantic way; of two, the one whose
        // own word the request says.
        let opt = json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null});
        let items = ToolSpec::new(
            "item_get",
            "Get items.",
            json!({"type": "object", "properties": {
                "item_name_contains": opt, "item_key_contains": opt,
                "search": {"type": "object"}}}),
        );
        let (_, r) = narrow_for_query(&items, "items with the word 'cpu' in their key");
        assert_eq!(r.promoted, ["item_key_contains"]);
        let (_, r) = narrow_for_query(&items, "items with 'cpu' in the name");
        assert_eq!(r.promoted, ["item_name_contains"]);
        let (_, r) = narrow_for_query(&items, "show me the 'cpu' items");
        assert!(r.promoted.is_empty(), "{r:?}");
    }

    #[test]
    fn a_span_of_time_names_its_duration_code() {
        let q = |s: &str| words(s);
        assert!(mentions_value(
            &q("TSLA prices for the past 6 months"),
            "6mo"
        ));
        assert!(mentions_value(&q("grab one year of daily prices"), "1y"));
        assert!(mentions_value(&q("grab one year of daily prices"), "1d"));
        assert!(mentions_value(&q("hourly AAPL prices"), "60m"));
        assert!(!mentions_value(&q("hourly AAPL prices"), "1d"));
        assert!(!mentions_value(&q("6 apples"), "6mo"));
        assert!(!mentions_value(&q("the months of 2024"), "1mo"));
        assert_eq!(duration_code("1wk"), Some(604_800));
        assert_eq!(duration_code("max"), None);
    }

    #[test]
    fn words_with_one_stem_are_the_same_word() {
        assert!(same_word("institutions", "institutional"));
        assert!(same_word("prorate", "proration") && same_word("actively", "actives"));
        assert!(same_word("splits", "split") && same_word("gainers", "gainers"));
        assert!(same_word("company", "companies") && !same_word("company", "compiles"));
        // Short stems do not count: "user" is not "usage", "pages" is not "paging".
        assert!(!same_word("user", "usage") && !same_word("pages", "paging"));
        assert!(!same_word("general", "generate") && !same_word("later", "latest"));
    }

    #[test]
    fn numbers_of_the_query_ground_numeric_parameters() {
        assert_eq!(
            query_numbers("a=1, b=-3, c=2; x^2 + 2x, 1e-9 and 2.5E+3, 1,000 items, x2, 1-3"),
            vec![
                json!(1),
                json!(-3),
                json!(2),
                json!(1e-9),
                json!(2500.0),
                json!(1000),
                json!(3)
            ]
        );
        let s = ToolSpec::new(
            "diff",
            "Diff two versions.",
            json!({"type": "object", "properties": {
                "page_id": {"type": "string"},
                "from_version": {"type": "integer"},
                "to_version": {"type": "integer"}
            }}),
        );
        let (g, _) = ground_numbers(&s, "what changed on page 555123 between versions 6 and 9");
        assert_eq!(
            g.parameters["properties"]["from_version"]["enum"],
            json!([6])
        );
        assert_eq!(g.parameters["properties"]["to_version"]["enum"], json!([9]));
        assert_eq!(
            query_numbers("a 1280x720 shot, a 3×4 grid, not 0x1F"),
            vec![json!(1280), json!(720), json!(3), json!(4), json!(0)]
        );
        assert_eq!(
            query_numbers("read https://news.example.com/2025/05/story.html, 3 pages"),
            vec![json!(3)]
        );
        assert_eq!(
            query_numbers("block 1a2b3c4d in kb 9TZKQ4WX1R, 24h, the 1960s"),
            vec![json!(24), json!(1960)]
        );
        let s = ToolSpec::new(
            "f",
            "F.",
            json!({"type": "object", "properties": {
                "n": {"type": "integer"},
                "x": {"type": "number", "minimum": 0},
                "interval": {"type": "array", "items": {"type": "number"}},
                "name": {"type": "string"}}}),
        );
        // a parameter the query names takes the number next to that name; the others the rest
        let (g, _) = ground_numbers(
            &ToolSpec::new(
                "field",
                "F.",
                json!({"type": "object", "properties": {
                    "charge": {"type": "number"}, "distance": {"type": "number"},
                    "days": {"type": "integer"}, "daily_budget": {"type": "number"}}}),
            ),
            "4 meters away from a charge of 0.01 Coulombs, 7 days, daily budgets not exceeding $100",
        );
        let p = &g.parameters["properties"];
        assert_eq!(p["charge"]["enum"], json!([0.01]));
        assert_eq!(p["distance"]["enum"], json!([4]));
        assert_eq!(p["days"]["enum"], json!([7]));
        assert_eq!(p["daily_budget"]["enum"], json!([100]));
        let (g, _) = ground_numbers(
            &ToolSpec::new(
                "em",
                "F.",
                json!({"type": "object", "properties": {"d_time": {"type": "integer"}}}),
            ),
            "a change in time of 4 seconds, then repeat with a change in time of 10 seconds",
        );
        assert_eq!(g.parameters["properties"]["d_time"]["enum"], json!([4, 10]));
        // a number right before the name counts it, whatever follows
        let stay = ToolSpec::new(
            "stay",
            "F.",
            json!({"type": "object", "properties": {"adults": {"type": "number"}}}),
        );
        for q in [
            "an airbnb in Lisbon for 2 adults from 2027-03-10",
            "an airbnb in Lisbon for 2 adults from March 10",
        ] {
            let (g, _) = ground_numbers(&stay, q);
            assert_eq!(
                g.parameters["properties"]["adults"]["enum"],
                json!([2]),
                "{q}"
            );
        }
        let (g, _) = ground_numbers(&stay, "room for 3 adults 2 children");
        assert_eq!(g.parameters["properties"]["adults"]["enum"], json!([3]));
        // siblings told apart only by a number are not attached by name
        let (g, _) = ground_numbers(
            &ToolSpec::new(
                "tri",
                "F.",
                json!({"type": "object", "properties": {
                    "side1": {"type": "integer"}, "side2": {"type": "integer"}}}),
            ),
            "its sides are 5 units and 4 units",
        );
        assert_eq!(g.parameters["properties"]["side2"]["enum"], json!([5, 4]));
        let (g, r) = ground_numbers(&s, "between -2 and 3.5");
        assert_eq!(g.parameters["properties"]["n"]["enum"], json!([-2]));
        assert_eq!(g.parameters["properties"]["x"]["enum"], json!([3.5]));
        assert_eq!(
            g.parameters["properties"]["interval"]["items"]["enum"],
            json!([-2, 3.5])
        );
        assert_eq!(
            g.parameters["properties"]["name"],
            json!({"type": "string"})
        );
        assert_eq!(r, vec!["n", "x", "interval[]"]);
        // no number in the query: unchanged
        let (g, r) = ground_numbers(&s, "no numbers here");
        assert_eq!(g.parameters, s.parameters);
        assert!(r.is_empty());
    }

    #[test]
    fn the_closest_reading_of_a_named_value_wins() {
        let one = |tool: &str, name: &str, p: Value, q: &str| {
            let t = ToolSpec::new(
                tool,
                "A tool.",
                json!({"type": "object", "properties": {name: p}}),
            );
            let (s, _) = narrow_for_query(&t, q);
            s.parameters["properties"][name]["enum"].clone()
        };
        // Written as it is beats words near each other.
        let part = json!({"type": "string", "enum": ["request-body", "response-body"]});
        let q = "show me the response body of network request number 3";
        assert_eq!(
            one("network_request", "part", part, q),
            json!(["response-body"])
        );
        // The tool's own verb gives way.
        let method = json!({"type": "string", "enum": ["merge", "squash", "rebase"]});
        let q = "squash-merge pull request #318 on acme/webapp";
        assert_eq!(
            one("merge_pull_request", "merge_method", method, q),
            json!(["squash"])
        );
        // A value glossed in the query's words.
        let sort = json!({"type": "string", "enum": ["relevance", "date"],
            "description": "Sort by 'relevance' (default) or 'date' (newest first)"});
        let q = "find recent preprints on speculative decoding, newest first";
        assert_eq!(
            one("search_papers", "sort_by", sort.clone(), q),
            json!(["date"])
        );
        // A gloss met by two values' words chooses none; nor does a filler word.
        let q = "find the default preprints on speculative decoding";
        assert_eq!(one("search_papers", "sort_by", sort, q), Value::Null);
        // A listed choice restricts, but is weak evidence for the tool.
        let t = ToolSpec::new(
            "fetch_content",
            "Fetch a page.\n    Args:\n        parse_mode: One of 'text', 'main' or 'markdown'.",
            json!({"type": "object", "properties": {"parse_mode": {"type": "string"}}}),
        );
        let (s, r) = narrow_for_query(&t, "text my sister that I'm late");
        assert_eq!(
            s.parameters["properties"]["parse_mode"]["enum"],
            json!(["text"])
        );
        assert!(!r.names_allowed_value());
        let mode = json!({"type": "string", "enum": ["fast", "slow"],
            "description": "`fast` - skips the page cache; `slow` - reads every page"});
        assert_eq!(one("t", "mode", mode.clone(), "open one page"), Value::Null);
        // The gloss that shares the most words with the request wins.
        assert_eq!(one("t", "mode", mode, "read every page"), json!(["slow"]));
        let t = ToolSpec::new(
            "screen_stocks",
            "Screen stocks.\n  Args:\n    query_type: Predefined query\n      - most_actives: Most \
             actively traded stocks today\n      - day_gainers: Biggest gainers today",
            json!({"type": "object", "properties": {"query_type": {"type": "string",
                "enum": ["most_actives", "day_gainers"]}}}),
        );
        let (s, _) = narrow_for_query(&t, "top 10 stock gainers today");
        assert_eq!(
            s.parameters["properties"]["query_type"]["enum"],
            json!(["day_gainers"])
        );
    }

    #[test]
    fn a_colour_named_keeps_the_colour_parameter() {
        let spec = ToolSpec::new(
            "add_label",
            "Create a label.",
            json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "color": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "order": {"type": "integer"}},
                "required": ["name"]}),
        );
        let (n, r) = narrow_for_query(&spec, "new label waiting-on, orange");
        assert_eq!(r.promoted, ["color"]);
        assert_eq!(n.parameters["required"], json!(["name", "color"]));
        let (g, _) = crate::spans::ground_strings(&n, "new label waiting-on, orange", true);
        assert_eq!(
            g.parameters["properties"]["color"]["enum"],
            json!(["orange"])
        );
        let (_, r) = narrow_for_query(&spec, "new label waiting-on");
        assert_eq!(r.dropped, ["color", "order"]);
    }

    #[test]
    fn optional_enums_are_kept_and_restricted_when_mentioned() {
        let users = ToolSpec::new(
            "query_users",
            "Users.",
            json!({"type": "object", "properties": {
                "name": {"type": ["string", "null"]},
                "role": {"anyOf": [{"type": "string", "enum": ["admin", "developer", "manager"]}, {"type": "null"}]},
                "department": {"anyOf": [{"type": "string", "enum": ["engineering", "sales"]}, {"type": "null"}]},
                "limit": {"type": "integer"}}}),
        );
        let (s, r) = narrow_for_query(&users, "Who are the admins in engineering?");
        let props = s.parameters["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), vec!["role", "department"]);
        assert_eq!(props["role"]["enum"], json!(["admin"]));
        assert_eq!(r.dropped, vec!["name".to_string(), "limit".to_string()]);
        assert_eq!(
            r.promoted,
            vec!["role".to_string(), "department".to_string()]
        );
        assert_eq!(s.parameters["required"], json!(["role", "department"]));
    }

    #[test]
    fn a_style_given_as_one_value_or_an_array_of_them_is_a_choice() {
        let styles = json!(["apa", "mla", "bibtex", "ris"]);
        let cite = |format: Value| {
            ToolSpec::new(
                "format_citations",
                "Citations of articles.",
                json!({"type": "object", "required": ["ids"], "properties": {
                    "ids": {"type": "array", "items": {"type": "string"}},
                    "format": format}}),
            )
        };
        let either = cite(json!({"default": "apa", "anyOf": [
            {"type": "string", "enum": styles},
            {"type": "array", "minItems": 1, "items": {"type": "string", "enum": styles}}]}));
        let (s, r) = narrow_for_query(&either, "bibtex entries for articles 29961564 and 30021884");
        assert_eq!(
            s.parameters["properties"]["format"]["enum"],
            json!(["bibtex"])
        );
        assert!(r.dropped.is_empty());
        // Only an array of the values: one value alone would not do, so no choice is made.
        let many = cite(json!({"anyOf": [
            {"type": "array", "items": {"type": "string", "enum": styles}}, {"type": "null"}]}));
        let (s, _) = narrow_for_query(&many, "bibtex entries for articles 29961564 and 30021884");
        assert!(s.parameters["properties"]["format"].get("enum").is_none());
    }

    #[test]
    fn optional_parameters_the_request_gives_a_value_by_a_cue_are_kept() {
        let invoices = ToolSpec::new(
            "list_invoices",
            "List invoices.",
            json!({"type": "object", "properties": {
                "customer": {"type": "string", "description": "The ID of the customer to list invoices for."},
                "limit": {"type": "integer"}}}),
        );
        // An identifier whose leading letters name the parameter.
        let (s, r) = narrow_for_query(&invoices, "what invoices has cus_N4k2 received from us");
        assert_eq!(r.promoted, vec!["customer".to_string()]);
        assert_eq!(s.parameters["required"], json!(["customer"]));
        // Without one, the optional parameter is left out as before.
        let (s, r) = narrow_for_query(&invoices, "what invoices did we send last week");
        assert!(r.promoted.is_empty());
        assert!(s.parameters["properties"].get("customer").is_none());
        // The head of a multi-word name before a value-like word; not its modifier.
        let resources = ToolSpec::new(
            "list_api_resources",
            "List the API resources.",
            json!({"type": "object", "properties": {
                "apiGroup": {"type": "string", "description": "API group to filter by"},
                "page_size": {"type": "integer"}}}),
        );
        let (_, r) = narrow_for_query(&resources, "which kinds are served under group batch-v2?");
        assert_eq!(r.promoted, vec!["apiGroup".to_string()]);
        let (_, r) = narrow_for_query(&resources, "resources listed on page 2b");
        assert!(r.promoted.is_empty());
        // A name that only says what kind of token it holds is named by its description's words.
        let context = ToolSpec::new(
            "kubectl_context",
            "Manage kubectl contexts.",
            json!({"type": "object", "required": ["operation"], "properties": {
                "operation": {"type": "string", "enum": ["get", "set", "list"]},
                "name": {"type": "string", "description": "Name of the context to set as current"}}}),
        );
        let (_, r) = narrow_for_query(&context, "set kubectl to the prod-eu-west context");
        assert!(r.promoted.contains(&"name".to_string()));
        // A value a staying parameter's cue claims is not another parameter's.
        let branch = ToolSpec::new(
            "create_branch",
            "Create a branch.",
            json!({"type": "object", "required": ["branch"], "properties": {
                "branch": {"type": "string"},
                "from_branch": {"type": "string", "description": "Source branch"}}}),
        );
        let (_, r) = narrow_for_query(&branch, "create a branch named feature/oauth");
        assert!(r.promoted.is_empty());
        // A path goes by its form, not by a cue ("file docs/CHANGELOG.md" is not a `sha`).
        let commit = ToolSpec::new(
            "create_or_update_file",
            "Create or update a file.",
            json!({"type": "object", "required": ["path"], "properties": {
                "path": {"type": "string"},
                "sha": {"type": "string", "description": "SHA of the file being replaced"}}}),
        );
        let (_, r) = narrow_for_query(&commit, "commit a new file docs/CHANGELOG.md to main");
        assert!(r.promoted.is_empty());
    }

    #[test]
    fn optional_parameters_written_in_their_form_are_kept() {
        let scrape = ToolSpec::new(
            "scrape",
            "Scrape a page.",
            json!({"type": "object", "properties": {
                "url": {"type": "string"},
                "formats": {"type": "array", "items": {"type": "string"}},
                "email": {"type": "string"}}}),
        );
        let (s, r) = narrow_for_query(&scrape, "grab https://example.com/pricing as markdown");
        let props = s.parameters["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), vec!["url"]);
        assert_eq!(r.promoted, vec!["url".to_string()]);
        assert_eq!(s.parameters["required"], json!(["url"]));
        // No URL written: the optional `url` is left out as before.
        let (s, _) = narrow_for_query(&scrape, "scrape the pricing page");
        assert!(s.parameters["properties"].as_object().unwrap().is_empty());
        // A customer's e-mail address keeps `email`.
        let customer = ToolSpec::new(
            "create_customer",
            "Create a customer.",
            json!({"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "email": {"type": "string"}}}),
        );
        let (s, r) = narrow_for_query(
            &customer,
            "add Jordan Blake (jordan.blake@example.com) as a customer",
        );
        assert_eq!(r.promoted, vec!["email".to_string()]);
        assert!(s.parameters["properties"].get("email").is_some());
        // One URL, and a required `url` already takes it: an optional `callback_url` stays out.
        let hook = ToolSpec::new(
            "hook",
            "Register a hook.",
            json!({"type": "object", "required": ["url"], "properties": {
                "url": {"type": "string"}, "callback_url": {"type": "string"}}}),
        );
        let (s, r) = narrow_for_query(&hook, "register https://example.com/hook");
        assert!(r.promoted.is_empty());
        assert!(s.parameters["properties"].get("callback_url").is_none());
    }

    #[test]
    fn amounts_in_cents_take_the_request_amounts_a_hundredfold() {
        let refund = ToolSpec::new(
            "create_refund",
            "Refund a payment.",
            json!({"type": "object", "required": ["payment_intent"], "properties": {
                "payment_intent": {"type": "string"},
                "amount": {"type": "integer", "description": "The amount to refund in cents."}}}),
        );
        let (g, _) = ground_numbers(&refund, "give $15 back to the buyer on payment pi_3Mtw");
        assert_eq!(g.parameters["properties"]["amount"]["enum"], json!([1500]));
        let (g, _) = ground_numbers(&refund, "refund 19.99 on pi_3Mtw");
        assert_eq!(g.parameters["properties"]["amount"]["enum"], json!([1999]));
    }

    #[test]
    fn enum_values_of_several_words_are_mentioned_in_any_order() {
        let q = |t: &str| words(t);
        assert!(mentions_value(
            &q("any recent upgrades or downgrades for Boeing"),
            "upgrades_downgrades"
        ));
        assert!(mentions_value(
            &q("which stocks are shorted the most right now"),
            "most_shorted_stocks"
        ));
        assert!(mentions_value(
            &q("just the startup warnings"),
            "startupWarnings"
        ));
        assert!(mentions_value(
            &q("how many times has the stock split"),
            "splits"
        ));
        assert!(mentions_value(
            &q("the analysts' price target on AMD"),
            "price_targets"
        ));
        // Too far apart, or a word missing: not mentioned.
        // A request without words mentions nothing (and `windows(0)` would panic).
        assert!(!mentions_value(&[], "past_due"));
        assert!(!mentions_value(
            &q("price history, and what the analysts expect as a target"),
            "price_targets"
        ));
        assert!(!mentions_value(
            &q("insiders been selling shares"),
            "insider_transactions"
        ));
        assert!(!mentions_value(&q("top 10 gainers"), "day_gainers"));
    }
}
