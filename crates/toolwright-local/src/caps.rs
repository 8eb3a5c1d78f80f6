//! Caps: a number that says how many (or how much) to return.
//!
//! People bound what they ask for with a handful of English words: "the **first** 3000
//! characters", "the **last** 5 payment intents", "**top** 10", "**up to** 20", "**at most**
//! 50", "**max** 200 characters", "20 **results**". Tools take that bound in a parameter
//! named for it: `limit`, `max_length`, `maxResults`, `top_k`, `n`, `page_size`, `count`. That
//! parameter is usually optional, so schema narrowing left it out unless the request named it,
//! and the model then dropped the number or put it in another parameter (`start_index` for "the
//! first 3000 characters").
//!
//! [`capped`] pairs each such number with the tool's one cap parameter that can take it; when
//! the tool has several, the word after the number chooses the one whose name or description
//! uses it ("characters" → `max_length`, not `max_depth`), and without such a word none is
//! chosen. A number after a time word ("the last 7 days") or that the request attaches to
//! another parameter by naming it is no cap. Narrowing keeps (and makes required) the chosen
//! parameter, and number grounding gives it that number.
//!
//! [`counted_in_words`] gives a count written in words to the parameter named for what it
//! counts ("with a pet" → `pets: 1`). [`bounded`] does the same for a bound on a value: "under 60" goes to the `max` parameter
//! (`maxPrice`), "at least 4" to the `min` one.
//!
//! The word lists are closed English word classes and naming conventions; nothing here was
//! fitted on data.

use serde_json::{Map, Value};

use crate::cues::name_words;

/// Words right before a number that make it a cap.
const BEFORE: &[&str] = &[
    "first", "last", "top", "max", "maximum", "limit", "latest", "newest", "oldest", "recent",
];

/// Word pairs right before a number that make it a cap ("up to 20", "at most 5").
const BEFORE_PAIRS: &[(&str, &str)] = &[("up", "to"), ("at", "most"), ("more", "than")];

/// Words right after a number that make it a count of what is returned ("20 results").
/// "The 10 most recent", "the 20 latest", "100 per page" count what is returned too.
const AFTER: &[&str] = &[
    "results", "hits", "items", "entries", "rows", "records", "matches", "most", "latest",
    "newest", "oldest", "recent", "per",
];

/// Time words: "the last 7 days" is a period, not a count.
const TIME: &[&str] = &[
    "second", "minute", "hour", "day", "week", "month", "quarter", "year", "sec", "min", "hr",
];

/// Name words of a parameter that bounds a count or a size.
const CAP_WORDS: &[&str] = &["limit", "max", "maximum", "top", "count", "per"];

/// Name words that, with a number word (`num_results`, `n_docs`), make a count of results.
const COUNTED: &[&str] = &[
    "results",
    "result",
    "items",
    "hits",
    "docs",
    "documents",
    "entries",
    "records",
    "rows",
];

/// Whether a parameter's name says it bounds how many or how much is returned: `limit`,
/// `max_length`, `maxResults`, `top_k`, `per_page`, `count`, `n`, `num_results`, `page_size`,
/// a `size` alone (a search's page size).
///
/// ```
/// use toolwright_local::caps::cap_param;
/// assert!(cap_param("limit") && cap_param("maxResults") && cap_param("top_k"));
/// assert!(cap_param("size") && !cap_param("file_size"));
/// assert!(cap_param("n") && cap_param("num_results") && cap_param("page_size"));
/// assert!(!cap_param("start_index") && !cap_param("page") && !cap_param("days"));
/// ```
pub fn cap_param(name: &str) -> bool {
    let ws = name_words(name);
    let has = |w: &str| ws.iter().any(|x| x == w);
    ws.iter().any(|w| CAP_WORDS.contains(&w.as_str()))
        || matches!(ws.as_slice(), [w] if w == "n" || w == "k" || w == "size")
        || ((has("num") || has("number") || has("n"))
            && ws.iter().any(|w| COUNTED.contains(&w.as_str())))
        || ((has("page") || has("batch")) && has("size"))
}

/// A word of the request with its character span.
struct Word {
    start: usize,
    end: usize,
    text: String,
}

/// The request's alphabetic words, lower-cased, with their character spans.
fn words(query: &str) -> Vec<Word> {
    crate::narrow::words_at(query)
        .into_iter()
        .map(|(start, text)| Word {
            start,
            end: start + text.chars().count(),
            text,
        })
        .collect()
}

/// Whether only spaces (or a currency sign) stand between characters `a` and `b`.
fn adjacent(chars: &[char], a: usize, b: usize) -> bool {
    a <= b
        && chars
            .get(a..b)
            .is_some_and(|s| s.iter().all(|c| c.is_whitespace() || "$€£".contains(*c)))
}

/// Whether the request's word `w` is, or is the plural of, `word`.
fn same_word(w: &str, word: &str) -> bool {
    w == word || w.strip_suffix('s') == Some(word) || w.strip_suffix("es") == Some(word)
}

/// Whether a parameter's name or description uses the word `w` (singular or plural).
fn mentions(name: &str, schema: &Value, w: &str) -> bool {
    let desc = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let stem = w.strip_suffix('s').unwrap_or(w);
    name_words(name)
        .iter()
        .map(String::as_str)
        .chain(desc.split(|c: char| !c.is_alphanumeric()))
        .any(|x| {
            let x = x.to_lowercase();
            x == w || x == stem || x.strip_suffix('s') == Some(stem)
        })
}

/// Whether `v` fits a number parameter that is not an enumeration.
fn fits(schema: &Value, v: &Value) -> bool {
    schema.get("enum").is_none() && crate::narrow::number_fits(schema, v)
}

/// The request's caps, each with the one parameter of `props` that takes it (see the module
/// docs). `attached(name)` are the numbers the request attaches to parameter `name` by naming
/// it: a number attached to a parameter that is not a cap is no cap.
///
/// ```
/// use serde_json::json;
/// use toolwright_local::caps::capped;
/// let props = json!({
///     "url": {"type": "string"},
///     "max_length": {"type": "integer", "description": "Maximum number of characters"},
///     "start_index": {"type": "integer"},
/// });
/// let props = props.as_object().unwrap();
/// let q = "open https://www.gov.uk/x and give me the first 3000 characters";
/// assert_eq!(capped(props, q, |_| Vec::new()), [("max_length".to_string(), json!(3000))]);
/// assert!(capped(props, "give me 3000 characters", |_| Vec::new()).is_empty());
/// let ages = json!({"limit": {"type": "integer"}, "max_age": {"type": "integer"}});
/// let q = "top 10 reactions in patients";
/// assert_eq!(capped(ages.as_object().unwrap(), q, |_| Vec::new()),
///            [("limit".to_string(), json!(10))]);
/// ```
pub fn capped(
    props: &Map<String, Value>,
    query: &str,
    attached: impl Fn(&str) -> Vec<Value>,
) -> Vec<(String, Value)> {
    each_number(
        props,
        query,
        |v,
         Around {
             prev, pair, next, ..
         }| {
            let by_before = prev.is_some_and(|p| BEFORE.contains(&p.text.as_str()))
                || pair.is_some_and(|p| BEFORE_PAIRS.contains(&p));
            let by_after = next.is_some_and(|n| AFTER.contains(&n.text.as_str()));
            if !(by_before || by_after)
                || next.is_some_and(|n| TIME.iter().any(|t| same_word(&n.text, t)))
            {
                return Vec::new();
            }
            cap_takers(props, v, &attached)
        },
    )
}

/// The cap parameters of `props` that can take the cap `v`, unless a parameter that is no cap
/// is given `v` by name (`attached`).
fn cap_takers<'p>(
    props: &'p Map<String, Value>,
    v: &Value,
    attached: &impl Fn(&str) -> Vec<Value>,
) -> Vec<&'p String> {
    // Only a parameter that can take the number claims it: "the latest 25 orders" does not
    // give 25 to an `order` of `asc` or `desc`.
    let elsewhere = props.iter().any(|(k, p)| {
        !cap_param(k) && fits(p, v) && attached(k).iter().any(|a| a.as_f64() == v.as_f64())
    });
    if elsewhere {
        return Vec::new();
    }
    props
        .iter()
        .filter(|(k, p)| cap_param(k) && fits(p, v))
        .map(|(k, _)| k)
        .collect()
}

/// The request's counts of the tool's own things, each with the one cap parameter of `props`
/// (see [`capped`]) that takes it: a number right before the plural of a word of the tool's
/// object ("list 80 followers" for `account_followers`, "10 cases" for `search_cases`).
///
/// ```
/// use serde_json::json;
/// use toolwright_local::caps::capped_things;
/// let props = json!({"account_id": {"type": "string"}, "limit": {"type": "integer"}});
/// let props = props.as_object().unwrap();
/// let q = "list 80 followers of mastodon user 4412";
/// assert_eq!(capped_things(props, q, "account_followers", |_| Vec::new()),
///            [("limit".to_string(), json!(80))]);
/// assert!(capped_things(props, "follower 80", "account_followers", |_| Vec::new()).is_empty());
/// ```
pub fn capped_things(
    props: &Map<String, Value>,
    query: &str,
    tool: &str,
    attached: impl Fn(&str) -> Vec<Value>,
) -> Vec<(String, Value)> {
    // The object after the name's verb, or every word of a name without one.
    let things: Vec<String> = toolwright_catalog::text::name_object(tool).map_or_else(
        || {
            name_words(tool)
                .iter()
                .map(|w| toolwright_catalog::text::stem(w))
                .collect()
        },
        |(_, o)| o,
    );
    if things.is_empty() {
        return Vec::new();
    }
    each_number(props, query, |v, Around { next, .. }| {
        let counts = next.is_some_and(|n| {
            n.text.len() > 3
                && n.text.ends_with('s')
                && things
                    .iter()
                    .any(|t| toolwright_catalog::text::stem(&n.text) == *t)
        });
        if !counts {
            return Vec::new();
        }
        cap_takers(props, v, &attached)
    })
}

/// Each number of the request with the parameters of `props` that `takers` says may take it
/// (given the number and the words around it), each given to one of them by [`take_one`].
fn each_number<'p>(
    props: &'p Map<String, Value>,
    query: &str,
    takers: impl Fn(&Value, Around<'_>) -> Vec<&'p String>,
) -> Vec<(String, Value)> {
    let chars: Vec<char> = query.chars().collect();
    let ws = words(query);
    let mut out: Vec<(String, Value)> = Vec::new();
    for (start, end, v) in crate::narrow::numbers_at(query) {
        let a = around(&chars, &ws, start, end);
        let next = a.next;
        let who = takers(&v, a);
        take_one(props, &who, next, v, &mut out);
    }
    out
}

/// The words right around a number of the request (only spaces or a currency sign between).
struct Around<'w> {
    /// The word right before it.
    prev: Option<&'w Word>,
    /// The two words right before it ("up to", "less than").
    pair: Option<(&'w str, &'w str)>,
    /// The word right after it.
    next: Option<&'w Word>,
    /// The three words after it, whatever stands between ("4.5 stars and up").
    after: Vec<&'w str>,
}

/// [`Around`] the number at characters `start..end` of the request.
fn around<'w>(chars: &[char], ws: &'w [Word], start: usize, end: usize) -> Around<'w> {
    let before: Vec<&Word> = ws.iter().filter(|w| w.end <= start).collect();
    let prev = before
        .last()
        .copied()
        .filter(|w| adjacent(chars, w.end, start));
    let pair = prev.and_then(|p| {
        let p2 = before.len().checked_sub(2).and_then(|k| before.get(k))?;
        adjacent(chars, p2.end, p.start).then_some((p2.text.as_str(), p.text.as_str()))
    });
    let next = ws
        .iter()
        .find(|w| w.start >= end)
        .filter(|w| adjacent(chars, end, w.start));
    let after = ws
        .iter()
        .filter(|w| w.start >= end)
        .take(3)
        .map(|w| w.text.as_str())
        .collect();
    Around {
        prev,
        pair,
        next,
        after,
    }
}

/// Gives `v` to the one parameter of `takers` that can take it: the only one, or among several
/// the one whose name or description uses the word `next` after the number; none otherwise, or
/// when that parameter already has a number in `out`.
fn take_one(
    props: &Map<String, Value>,
    takers: &[&String],
    next: Option<&Word>,
    v: Value,
    out: &mut Vec<(String, Value)>,
) {
    let chosen: Vec<&String> = match (takers, next) {
        ([one], _) => vec![*one],
        (_, Some(n)) => takers
            .iter()
            .filter(|k| {
                props
                    .get(k.as_str())
                    .is_some_and(|p| mentions(k, p, &n.text))
            })
            .copied()
            .collect(),
        _ => Vec::new(),
    };
    // Else the one that bounds nothing but the count ("top 10 reactions": `limit`, not
    // `max_age`).
    let chosen = if chosen.is_empty() && takers.len() > 1 {
        let pure = |k: &str| {
            name_words(k).iter().all(|w| {
                CAP_WORDS.contains(&w.as_str())
                    || COUNTED.contains(&w.as_str())
                    || matches!(w.as_str(), "n" | "k" | "num" | "number" | "page" | "size")
            })
        };
        takers.iter().filter(|k| pure(k)).copied().collect()
    } else {
        chosen
    };
    if let [one] = chosen.as_slice()
        && !out.iter().any(|(k, _)| k == *one)
    {
        out.push(((*one).clone(), v));
    }
}

/// Words right before a number that make it an upper bound of a value ("under 60").
const UPPER: &[&str] = &["under", "below"];
/// Word pairs right before a number that make it an upper bound ("less than 60").
const UPPER_PAIRS: &[(&str, &str)] = &[("less", "than"), ("cheaper", "than")];
/// Words right before a number that make it a lower bound of a value ("over 4").
const LOWER: &[&str] = &["over", "above"];
/// Words after "or" or "and" after a number that make it an upper bound ("60 or less").
const UPPER_AFTER: &[&str] = &["less", "fewer", "lower", "below", "under", "cheaper"];
/// Words after "or" or "and" after a number that make it a lower bound ("4.5 stars and up").
const LOWER_AFTER: &[&str] = &["up", "more", "better", "higher", "above", "over", "greater"];
/// Word pairs right before a number that make it a lower bound ("at least 4").
const LOWER_PAIRS: &[(&str, &str)] = &[("at", "least")];

/// The request's bounds on a value, each with the one parameter of `props` that takes it: a
/// number after "under", "below" or "less than" goes to the parameter whose name says `max`
/// (`maxPrice`), one after "over", "above" or "at least" to the one whose name says `min`.
/// With several such parameters, the word after the number chooses as for caps; a number
/// `attached(name)` gives another parameter by naming it is no bound.
///
/// ```
/// use serde_json::json;
/// use toolwright_local::caps::bounded;
/// let props = json!({
///     "adults": {"type": "number"}, "minPrice": {"type": "number"},
///     "maxPrice": {"type": "number"},
/// });
/// let props = props.as_object().unwrap();
/// let q = "cheap private rooms in Berlin under 60";
/// assert_eq!(bounded(props, q, |_| Vec::new()), [("maxPrice".to_string(), json!(60))]);
/// assert_eq!(bounded(props, "rooms over $90", |_| Vec::new()), [("minPrice".to_string(), json!(90))]);
/// assert!(bounded(props, "rooms for 60", |_| Vec::new()).is_empty());
/// let rated = json!({"min_rating": {"type": "number"}, "limit": {"type": "integer"}});
/// let rated = rated.as_object().unwrap();
/// let q = "best museums in Madrid, 4.5 stars and up";
/// assert_eq!(bounded(rated, q, |_| Vec::new()), [("min_rating".to_string(), json!(4.5))]);
/// assert_eq!(bounded(props, "rooms at 80 or less", |_| Vec::new()),
///            [("maxPrice".to_string(), json!(80))]);
/// ```
pub fn bounded(
    props: &Map<String, Value>,
    query: &str,
    attached: impl Fn(&str) -> Vec<Value>,
) -> Vec<(String, Value)> {
    each_number(
        props,
        query,
        |v,
         Around {
             prev, pair, after, ..
         }| {
            let said = |one: &[&str], two: &[(&str, &str)]| {
                prev.is_some_and(|p| one.contains(&p.text.as_str()))
                    || pair.is_some_and(|p| two.contains(&p))
            };
            // "4.5 stars and up", "4 or more", "60 or less": "or" or "and" and a word of the
            // side, right after the number or after one word.
            let follows = |side: &[&str]| {
                let tail = |k: usize| match after.get(k..k + 2) {
                    Some([joint, word]) => matches!(*joint, "or" | "and") && side.contains(word),
                    _ => false,
                };
                tail(0) || tail(1)
            };
            let side = if said(UPPER, UPPER_PAIRS) || follows(UPPER_AFTER) {
                ["max", "maximum"]
            } else if said(LOWER, LOWER_PAIRS) || follows(LOWER_AFTER) {
                ["min", "minimum"]
            } else {
                return Vec::new();
            };
            if props
                .keys()
                .any(|k| attached(k).iter().any(|a| a.as_f64() == v.as_f64()))
            {
                return Vec::new();
            }
            props
                .iter()
                .filter(|(k, p)| {
                    name_words(k).iter().any(|w| side.contains(&w.as_str())) && fits(p, v)
                })
                .map(|(k, _)| k)
                .collect()
        },
    )
}

/// Words that count one ("a pet", "one child").
const ONE: &[&str] = &["a", "an", "one"];
/// Number words that count more ("two adults").
const COUNTS: &[&str] = &[
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
];

/// The counts the request writes in words, each with the number parameter named for what it
/// counts: "with a pet" → `pets: 1`, "for two adults" → `adults: 2`. Only a parameter whose
/// name is one plural word counts things ("a page" does not make `page` 1), and only when the
/// word right after the count is that word or its singular.
///
/// ```
/// use serde_json::json;
/// use toolwright_local::caps::counted_in_words;
/// let props = json!({"pets": {"type": "number"}, "adults": {"type": "number"},
///                    "page": {"type": "integer"}});
/// let props = props.as_object().unwrap();
/// let q = "a room for two adults with a pet, a page of results";
/// assert_eq!(counted_in_words(props, q),
///            [("adults".to_string(), json!(2)), ("pets".to_string(), json!(1))]);
/// ```
pub fn counted_in_words(props: &Map<String, Value>, query: &str) -> Vec<(String, Value)> {
    use toolwright_catalog::text::stem;
    let chars: Vec<char> = query.chars().collect();
    let ws = words(query);
    let mut out: Vec<(String, Value)> = Vec::new();
    for pair in ws.windows(2) {
        let [count, thing] = pair else { continue };
        if !adjacent(&chars, count.end, thing.start) {
            continue;
        }
        let n = if ONE.contains(&count.text.as_str()) {
            1
        } else if let Some(i) = COUNTS.iter().position(|c| *c == count.text) {
            i + 2
        } else {
            continue;
        };
        let v = Value::from(n);
        let named = props.iter().find(|(k, p)| {
            let ws = name_words(k);
            let [word] = ws.as_slice() else {
                return false;
            };
            let plural = word.len() > 3 && stem(word) != *word;
            plural && stem(&thing.text) == stem(word) && fits(p, &v)
        });
        if let Some((k, _)) = named
            && !out.iter().any(|(o, _)| o == k)
        {
            out.push((k.clone(), v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_in_words_ground_the_parameter_they_count() {
        let stay = crate::narrow::narrow_for_query(
            &toolwright_core::ToolSpec::new(
                "search",
                "Find stays.",
                json!({"type": "object", "properties": {
                    "location": {"type": "string"}, "pets": {"type": "number"},
                    "adults": {"type": "number"}, "page": {"type": "integer"}},
                    "required": ["location"]}),
            ),
            "a room in Kyoto with a pet",
        )
        .0;
        let (g, _) = crate::narrow::ground_numbers(&stay, "a room in Kyoto with a pet");
        let p = &g.parameters["properties"];
        assert_eq!(p["pets"]["enum"], json!([1]));
        assert!(p.get("adults").is_none() && p.get("page").is_none(), "{p}");
        // Digits next to the name win over words elsewhere.
        let (g, _) = crate::narrow::ground_numbers(&stay, "a room for 3 pets");
        assert_eq!(g.parameters["properties"]["pets"]["enum"], json!([3]));
    }

    #[test]
    fn bounds_go_to_the_side_their_word_says() {
        let p = props(json!({
            "maxPrice": {"type": "number"}, "minPrice": {"type": "number"},
            "maxNights": {"type": "integer", "description": "Longest stay in nights"},
            "adults": {"type": "number"}}));
        let b = |q: &str| bounded(&p, q, |_| Vec::new());
        assert!(
            b("rooms under 60").is_empty(),
            "two max parameters, no word to choose"
        );
        assert_eq!(
            b("stays under 5 nights"),
            [("maxNights".to_string(), json!(5))]
        );
        assert_eq!(
            b("at least 40 a night"),
            [("minPrice".to_string(), json!(40))]
        );
        assert!(b("rooms for 2 adults").is_empty());
        // A number the request names another parameter by is no bound.
        let named = |k: &str| {
            if k == "adults" {
                vec![json!(3)]
            } else {
                Vec::new()
            }
        };
        assert!(bounded(&p, "over 3 adults", named).is_empty());
    }

    fn props(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn caps(p: &Map<String, Value>, q: &str) -> Vec<(String, Value)> {
        capped(p, q, |_| Vec::new())
    }

    #[test]
    fn cap_words_before_or_after_the_number_make_a_cap() {
        let p = props(json!({"customer": {"type": "string"},
                             "limit": {"type": "integer", "minimum": 1, "maximum": 100}}));
        for q in [
            "last 5 payment intents for stripe customer cus_N4k2",
            "show me the top 5 customers",
            "up to 5 intents please",
            "at most 5, newest first",
            "search for tokio, 5 results",
        ] {
            assert_eq!(caps(&p, q), [("limit".to_string(), json!(5))], "{q}");
        }
        // Out of bounds, or no cap word: no cap.
        assert!(caps(&p, "last 500 payment intents").is_empty());
        assert!(caps(&p, "payment intents of customer 5").is_empty());
    }

    #[test]
    fn periods_and_named_numbers_are_no_caps() {
        let p = props(json!({"limit": {"type": "integer"}, "days": {"type": "integer"}}));
        assert!(caps(&p, "errors of the last 7 days").is_empty());
        let attached = |k: &str| {
            if k == "days" {
                vec![json!(7)]
            } else {
                Vec::new()
            }
        };
        assert!(capped(&p, "the last 7 for days", attached).is_empty());
    }

    #[test]
    fn the_word_after_the_number_chooses_among_several_caps() {
        let p = props(json!({
            "max_length": {"type": "integer", "description": "Maximum number of characters to return"},
            "max_depth": {"type": "integer", "description": "How many levels of links to follow"}}));
        assert_eq!(
            caps(&p, "give me the first 3000 characters"),
            [("max_length".to_string(), json!(3000))]
        );
        assert_eq!(
            caps(&p, "follow at most 2 levels"),
            [("max_depth".to_string(), json!(2))]
        );
        assert!(caps(&p, "the first 3000 please").is_empty());
    }
}
