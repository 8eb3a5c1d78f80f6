//! Units: a number the request states with a unit goes, converted, to the number parameter
//! documented in a unit of the same kind.
//!
//! "a demo task that takes 10 seconds in 5 steps" has two numbers; `steps` is named, and
//! `duration` ("Duration of the operation in seconds") is not, so narrowing dropped it and the
//! 10 was lost. "within 2 km of 52.52,13.405" gave `radius: 2` where the radius is "in
//! meters". A parameter's unit is the first unit word of its description ("in seconds",
//! "(milliseconds)") or the last word of its name (`timeout_ms`, `delay_seconds`), or a
//! percentage anywhere in its name (`percent_off`); a stated number's unit is the word right
//! after it, or the letters or `%` glued to it (`500ms`, `2km`, `25%`).
//! When exactly one number parameter of a tool takes that kind of unit (a time, a length) and
//! the converted number fits its bounds, narrowing keeps it (required) and number grounding
//! gives it the converted number: "2 km" → `2000` for a radius in meters, "1.5 minutes" →
//! `90000` for a timeout in milliseconds.
//!
//! [`sized`] does the same for a size written as width by height (`1280x720`): a tool's `width`
//! and `height` take its two numbers, in that order.
//!
//! The unit words are the SI and common English ones; nothing here was fitted on data.

use serde_json::{Map, Value};

use crate::cues::name_words;

/// What a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dimension {
    Time,
    Length,
    Percent,
}

/// Unit words, what they measure, and their size in seconds or meters. Words of one or two
/// letters count only right after a number (`10 s`, `2 km`), never in a description.
const UNITS: &[(&str, Dimension, f64)] = &[
    ("ms", Dimension::Time, 0.001),
    ("millisecond", Dimension::Time, 0.001),
    ("milliseconds", Dimension::Time, 0.001),
    ("s", Dimension::Time, 1.0),
    ("sec", Dimension::Time, 1.0),
    ("secs", Dimension::Time, 1.0),
    ("second", Dimension::Time, 1.0),
    ("seconds", Dimension::Time, 1.0),
    ("min", Dimension::Time, 60.0),
    ("mins", Dimension::Time, 60.0),
    ("minute", Dimension::Time, 60.0),
    ("minutes", Dimension::Time, 60.0),
    ("h", Dimension::Time, 3_600.0),
    ("hr", Dimension::Time, 3_600.0),
    ("hrs", Dimension::Time, 3_600.0),
    ("hour", Dimension::Time, 3_600.0),
    ("hours", Dimension::Time, 3_600.0),
    ("day", Dimension::Time, 86_400.0),
    ("days", Dimension::Time, 86_400.0),
    ("week", Dimension::Time, 604_800.0),
    ("weeks", Dimension::Time, 604_800.0),
    ("mm", Dimension::Length, 0.001),
    ("millimeters", Dimension::Length, 0.001),
    ("cm", Dimension::Length, 0.01),
    ("centimeters", Dimension::Length, 0.01),
    ("m", Dimension::Length, 1.0),
    ("meter", Dimension::Length, 1.0),
    ("meters", Dimension::Length, 1.0),
    ("metre", Dimension::Length, 1.0),
    ("metres", Dimension::Length, 1.0),
    ("km", Dimension::Length, 1_000.0),
    ("kilometer", Dimension::Length, 1_000.0),
    ("kilometers", Dimension::Length, 1_000.0),
    ("kilometre", Dimension::Length, 1_000.0),
    ("kilometres", Dimension::Length, 1_000.0),
    ("mi", Dimension::Length, 1_609.344),
    ("mile", Dimension::Length, 1_609.344),
    ("miles", Dimension::Length, 1_609.344),
    ("ft", Dimension::Length, 0.3048),
    ("foot", Dimension::Length, 0.3048),
    ("feet", Dimension::Length, 0.3048),
    ("%", Dimension::Percent, 1.0),
    ("percent", Dimension::Percent, 1.0),
    ("percentage", Dimension::Percent, 1.0),
    ("pct", Dimension::Percent, 1.0),
];

/// Whether `word` names a unit ("hours", "km", "%").
pub(crate) fn is_unit(word: &str) -> bool {
    unit(word).is_some()
}

/// The unit a word names.
fn unit(word: &str) -> Option<(Dimension, f64)> {
    let w = word.to_lowercase();
    UNITS
        .iter()
        .find(|(u, _, _)| *u == w)
        .map(|(_, d, f)| (*d, *f))
}

/// The unit parameter `name` takes: the first unit word (three letters or more, or `ms`) of
/// its description, else the last word of its name.
fn param_unit(name: &str, description: &str) -> Option<(Dimension, f64)> {
    let long = |w: &str| w.len() >= 3 || w.eq_ignore_ascii_case("ms");
    // Another parameter's name in the description ("required if percent_off is not passed") is
    // one word, no unit.
    description
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| long(w))
        .find_map(unit)
        .or_else(|| {
            // `days_ahead`, `hours_back`: the unit before a word that says which way.
            let words = name_words(name);
            let way =
                |w: &String| AHEAD_NAMES.contains(&w.as_str()) || BACK_NAMES.contains(&w.as_str());
            words
                .iter()
                .rev()
                .find(|w| !way(w))
                .filter(|w| long(w))
                .and_then(|w| unit(w))
        })
        .or_else(|| {
            // `percent_off`, `discount_pct`: a percentage anywhere in the name.
            name_words(name)
                .iter()
                .filter_map(|w| unit(w))
                .find(|(d, _)| *d == Dimension::Percent)
        })
}

/// Whether parameter `name` (documented by `description`) measures in a unit: a time, a
/// length, a size or a percentage ([`placed`] gives it the numbers stated in a unit).
///
/// ```
/// use toolwright_local::units::measured;
/// assert!(measured("waitFor", "Time in milliseconds to wait for the page"));
/// assert!(measured("timeout_seconds", ""));
/// assert!(measured("maxAge", "") && measured("delay", ""));
/// assert!(!measured("limit", "Maximum number of pages to crawl") && !measured("pageSize", ""));
/// ```
pub fn measured(name: &str, description: &str) -> bool {
    // Named for a span of time, the unit unsaid (`delay`, `waitFor`, `maxAge`, `ttl`).
    const DURATION_WORDS: &[&str] = &[
        "delay", "wait", "timeout", "duration", "interval", "age", "ttl", "sleep", "latency",
    ];
    param_unit(name, description).is_some()
        || name_words(name)
            .iter()
            .any(|w| DURATION_WORDS.contains(&w.as_str()))
}

/// The numbers `query` states with a unit: value, dimension, size of the unit, and the
/// number as written.
fn stated(query: &str) -> Vec<(f64, Dimension, f64, Value)> {
    stated_at(query)
        .into_iter()
        .map(|(n, d, f, v, _)| (n, d, f, v))
        .collect()
}

/// [`stated`], with which way in time each quantity points, as the words around it say.
fn stated_at(query: &str) -> Vec<(f64, Dimension, f64, Value, Option<Way>)> {
    let mut out = Vec::new();
    // `numbers_at` counts characters; the text after a number starts at this byte.
    let at: Vec<usize> = query.char_indices().map(|(i, _)| i).collect();
    for (start, end, v) in crate::narrow::numbers_at(query) {
        let Some(n) = v.as_f64() else { continue };
        let Some(&after_at) = at.get(end) else {
            continue;
        };
        let rest = query.get(after_at..).unwrap_or("");
        let glued: String = if rest.starts_with('%') {
            "%".to_string()
        } else {
            rest.chars().take_while(char::is_ascii_alphabetic).collect()
        };
        let word = if glued.is_empty() {
            rest.trim_start_matches([' ', '\u{a0}'])
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("")
                .to_string()
        } else {
            glued
        };
        if let Some((d, f)) = unit(&word) {
            let before = at.get(start).and_then(|b| query.get(..*b)).unwrap_or("");
            out.push((n, d, f, v, way(before, rest)));
        }
    }
    out
}

/// "the past day", "in the next hour", "over the last week": one of a unit of a minute or more,
/// with its way in time, where no number is written before the unit.
fn one_unit(query: &str) -> Vec<(f64, Dimension, f64, Value, Option<Way>)> {
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .filter_map(|pair| {
            let [before, word] = pair else { return None };
            let way = if AHEAD_BEFORE.contains(before) {
                Way::Ahead
            } else if BACK_BEFORE.contains(before) {
                Way::Back
            } else {
                return None;
            };
            let (d, f) = unit(word).filter(|(_, f)| *f >= 60.0 && !word.ends_with('s'))?;
            Some((1.0, d, f, Value::from(1), Some(way)))
        })
        .collect()
}

/// Which way in time a quantity points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Ahead: "the next 14 days", "in the coming 8 hours", "3 days from now".
    Ahead,
    /// Back: "the last 60 days", "the past week", "2 hours ago".
    Back,
}

/// Words before a quantity that point ahead or back.
const AHEAD_BEFORE: &[&str] = &["next", "coming", "upcoming", "following"];
const BACK_BEFORE: &[&str] = &["last", "past", "previous", "prior"];

/// Name words of a parameter counted ahead or back (`days_ahead`, `days_back`, `lookback`).
const AHEAD_NAMES: &[&str] = &["ahead", "forward", "future", "next", "upcoming"];
const BACK_NAMES: &[&str] = &["back", "ago", "past", "previous", "lookback", "history"];

/// The [`Way`] of a quantity, from the two words `before` it and the words after its unit.
fn way(before: &str, after: &str) -> Option<Way> {
    let lower = before.to_lowercase();
    let prev: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .rev()
        .take(2)
        .collect();
    let next: Vec<String> = after
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .skip(1)
        .take(2)
        .map(String::from)
        .collect();
    let said = |w: &str| next.first().is_some_and(|n| n == w);
    if prev.iter().any(|w| AHEAD_BEFORE.contains(w)) || said("ahead") || next == ["from", "now"] {
        Some(Way::Ahead)
    } else if prev.iter().any(|w| BACK_BEFORE.contains(w)) || said("ago") || said("back") {
        Some(Way::Back)
    } else {
        None
    }
}

/// The numbers `query` states with a unit of time, length or percentage ("24 hours", "2km",
/// "25%").
///
/// ```
/// use toolwright_local::units::with_unit;
/// assert_eq!(with_unit("issues from the last 24 hours, top 5"), [24.0]);
/// assert!(with_unit("the last 20 lines").is_empty());
/// ```
pub fn with_unit(query: &str) -> Vec<f64> {
    stated(query).into_iter().map(|(n, ..)| n).collect()
}

/// `n` as a JSON number: an integer when it is one.
fn number(n: f64) -> Option<Value> {
    let rounded = n.round();
    if (n - rounded).abs() < 1e-9 && rounded.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        return Some(Value::from(rounded as i64));
    }
    serde_json::Number::from_f64(n).map(Value::Number)
}

/// For each number the request states with a unit, the one number parameter of `props` that
/// takes that kind of unit, with the number converted to its unit and the number as written
/// (see the module docs). A number whose kind of unit several parameters take goes to none.
///
/// ```
/// use serde_json::json;
/// use toolwright_local::units::placed;
/// let props = json!({"steps": {"type": "number"},
///     "duration": {"type": "number", "description": "Duration of the operation in seconds"}});
/// let p = placed(props.as_object().unwrap(), "a task that takes 10 seconds in 5 steps");
/// assert_eq!(p, [("duration".to_string(), json!(10), json!(10))]);
/// let window = json!({"days_ahead": {"type": "integer"}, "days_back": {"type": "integer"}});
/// let p = placed(window.as_object().unwrap(), "events for the next 14 days");
/// assert_eq!(p, [("days_ahead".to_string(), json!(14), json!(14))]);
/// let p = placed(window.as_object().unwrap(), "anything about Berlin over the last 60 days");
/// assert_eq!(p, [("days_back".to_string(), json!(60), json!(60))]);
/// assert!(placed(window.as_object().unwrap(), "14 days").is_empty());
/// let hours = json!({"hours": {"type": "integer"}});
/// let p = placed(hours.as_object().unwrap(), "messages with attachments from the past day");
/// assert_eq!(p, [("hours".to_string(), json!(24), json!(1))]);
/// let props = json!({"radius": {"type": "number", "description": "Radius in meters"}});
/// let p = placed(props.as_object().unwrap(), "chargers within 2 km of 52.52,13.405");
/// assert_eq!(p, [("radius".to_string(), json!(2000), json!(2))]);
/// ```
pub fn placed(props: &Map<String, Value>, query: &str) -> Vec<(String, Value, Value)> {
    let mut out = Vec::new();
    for (n, dim, size, written, way) in stated_at(query).into_iter().chain(one_unit(query)) {
        let mut takers: Vec<(&String, f64, &Value)> = props
            .iter()
            .filter(|(_, p)| crate::narrow::free_number(p))
            .filter_map(|(k, p)| {
                let (d, f) = param_unit(k, crate::narrow::described(p))?;
                (d == dim).then_some((k, f, p))
            })
            .collect();
        // Two parameters in one unit counted ahead and back (`days_ahead`, `days_back`): the
        // words around the quantity say which ("the next 14 days").
        if takers.len() > 1
            && let Some(way) = way
        {
            let names = match way {
                Way::Ahead => AHEAD_NAMES,
                Way::Back => BACK_NAMES,
            };
            takers.retain(|(k, _, _)| name_words(k).iter().any(|w| names.contains(&w.as_str())));
        }
        let [(k, f, p)] = takers.as_slice() else {
            continue;
        };
        let Some(v) = number(n * size / f) else {
            continue;
        };
        if crate::narrow::number_fits(p, &v) && !out.iter().any(|(o, _, _)| o == *k) {
            out.push(((*k).clone(), v, written));
        }
    }
    out
}

/// A size the request writes as width by height (`1280x720`, `800×600`, "1024 by 768"), for a
/// tool with one number parameter named for each (`width` and `height`, `viewportWidth`):
/// each with its number, when it fits. Three numbers so joined are length, width and height,
/// for a tool with a `length` too ("a 30x20x15 cm box").
///
/// ```
/// use serde_json::json;
/// use toolwright_local::units::sized;
/// let props = json!({"name": {"type": "string"},
///     "width": {"type": "number"}, "height": {"type": "number"}});
/// let s = sized(props.as_object().unwrap(), "a screenshot called 'home' at 1280x720");
/// assert_eq!(s, [("width".to_string(), json!(1280)), ("height".to_string(), json!(720))]);
/// let parcel = json!({"length": {"type": "number"}, "width": {"type": "number"},
///     "height": {"type": "number"}, "weight": {"type": "number"}});
/// let s = sized(parcel.as_object().unwrap(), "ship a 2kg box 30x20x15 cm to the US");
/// assert_eq!(s, [("length".to_string(), json!(30)), ("width".to_string(), json!(20)),
///                ("height".to_string(), json!(15))]);
/// ```
pub fn sized(props: &Map<String, Value>, query: &str) -> Vec<(String, Value)> {
    let side = |word: &str| -> Option<(&String, &Value)> {
        let found: Vec<(&String, &Value)> = props
            .iter()
            .filter(|(k, p)| {
                crate::narrow::free_number(p) && name_words(k).iter().any(|w| w == word)
            })
            .collect();
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    };
    let (Some((w, wp)), Some((h, hp))) = (side("width"), side("height")) else {
        return Vec::new();
    };
    let chars: Vec<char> = query.chars().collect();
    let numbers = crate::narrow::numbers_at(query);
    let joined_at = |a_end: usize, b_start: usize| {
        let between: String = chars
            .get(a_end..b_start)
            .unwrap_or_default()
            .iter()
            .collect();
        matches!(between.trim(), "x" | "×" | "X" | "by")
    };
    // A box written length by width by height ("30x20x15 cm"), for a tool with a `length` too.
    if let Some((l, lp)) = side("length") {
        for three in numbers.windows(3) {
            let [(_, a_end, a), (b_start, b_end, b), (c_start, _, c)] = three else {
                continue;
            };
            if joined_at(*a_end, *b_start)
                && joined_at(*b_end, *c_start)
                && crate::narrow::number_fits(lp, a)
                && crate::narrow::number_fits(wp, b)
                && crate::narrow::number_fits(hp, c)
            {
                return vec![
                    (l.clone(), a.clone()),
                    (w.clone(), b.clone()),
                    (h.clone(), c.clone()),
                ];
            }
        }
    }
    for pair in numbers.windows(2) {
        let [(_, a_end, a), (b_start, _, b)] = pair else {
            continue;
        };
        let between: String = chars
            .get(*a_end..*b_start)
            .unwrap_or_default()
            .iter()
            .collect();
        let joined = matches!(between.trim(), "x" | "×" | "X" | "by");
        if joined && crate::narrow::number_fits(wp, a) && crate::narrow::number_fits(hp, b) {
            return vec![(w.clone(), a.clone()), (h.clone(), b.clone())];
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(props: Value, q: &str) -> Vec<(String, Value, Value)> {
        placed(props.as_object().unwrap(), q)
    }

    #[test]
    fn units_convert_and_glue() {
        let t = json!({"timeout_ms": {"type": "integer"}});
        assert_eq!(p(t.clone(), "wait 1.5 minutes")[0].1, json!(90000));
        assert_eq!(p(t.clone(), "give it 500ms")[0].1, json!(500));
        assert!(p(t, "wait for 3 pages").is_empty());
        // Two parameters of one kind: the number goes to neither.
        let two = json!({"timeout_ms": {"type": "integer"}, "interval_ms": {"type": "integer"}});
        assert!(p(two, "wait 2 seconds").is_empty());
        // Out of bounds: none.
        let small =
            json!({"delay": {"type": "number", "maximum": 60, "description": "in seconds"}});
        assert!(p(small, "in 2 hours").is_empty());
        // A percentage goes to the parameter named for one.
        let coupon = json!({"percent_off": {"type": "number", "maximum": 100},
            "amount_off": {"type": "number", "description": "required if percent_off is not set"}});
        assert_eq!(p(coupon, "a one-time 25% off coupon")[0].1, json!(25));
        // A one-letter word in a description is no unit.
        assert_eq!(param_unit("size", "a value in m or s"), None);
    }
}
