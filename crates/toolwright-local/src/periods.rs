//! Calendar periods a request names, as the first and last day of each.
//!
//! A date range's two sides (`start_date` / `end_date`, `from_date` / `to_date`) are often
//! given as one period: "leave requests for July 2026", "shipments by status for Q2 2026". A
//! 135M model writes `"2026"` into both sides; the period says exactly which two ISO dates are
//! meant. [`named`] reads the periods that hold a year, so nothing depends on today's date:
//! a month and its year ("July 2026", "jul 2026", "2026-07"), a quarter or half year and its
//! year ("Q2 2026", "2026 Q2", "H1 2026"). A year alone ("since 2023", "in 2024") is left out:
//! whether it is a range or a start is the request's to say, not the calendar's.
//!
//! A day written in words with its year ("January 1, 2026", "the 1st of September 2026",
//! "3 March 2026") is no period: [`as_iso`] writes it the ISO way, so that what reads ISO dates
//! (a date parameter's offered values, a range's sides, "since" and "until") reads it too, and
//! its day and year are no numbers for a count.
//!
//! ```
//! use toolwright_local::periods::{Period, named};
//! assert_eq!(named("leave requests for July 2026"),
//!            [Period { first: "2026-07-01".into(), last: "2026-07-31".into() }]);
//! assert_eq!(named("status breakdown for Q2 2026")[0].last, "2026-06-30");
//! assert_eq!(named("clock-ins corrected in feb 2024")[0].last, "2024-02-29");
//! assert!(named("top 50 deals since 2023").is_empty());
//! ```

/// A calendar period: its first and last day, each `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    /// The period's first day.
    pub first: String,
    /// The period's last day.
    pub last: String,
}

/// Month names and their usual short forms, in calendar order of their month (1-based index
/// through [`month_of`]).
const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("jan", 1),
    ("february", 2),
    ("feb", 2),
    ("march", 3),
    ("mar", 3),
    ("april", 4),
    ("apr", 4),
    ("may", 5),
    ("june", 6),
    ("jun", 6),
    ("july", 7),
    ("jul", 7),
    ("august", 8),
    ("aug", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("october", 10),
    ("oct", 10),
    ("november", 11),
    ("nov", 11),
    ("december", 12),
    ("dec", 12),
];

/// Whether `word` (lower case) names a month ("march", "sept").
pub fn is_month(word: &str) -> bool {
    month_of(word).is_some()
}

/// Whether `word` (lower case) names a quarter or half of a year (`q1` … `q4`, `h1`, `h2`).
pub fn is_part_of_year(word: &str) -> bool {
    part_of_year(word).is_some()
}

fn month_of(word: &str) -> Option<u32> {
    MONTHS.iter().find(|(m, _)| *m == word).map(|(_, n)| *n)
}

/// A year of the calendars tools keep (1900–2100), written as four digits.
fn year_of(word: &str) -> Option<i32> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse::<i32>().ok())
        .flatten()
        .filter(|y| (1900..=2100).contains(y))
}

/// The months a quarter or half year spans (`q2` → April to June), or `None`.
fn part_of_year(word: &str) -> Option<(u32, u32)> {
    match word {
        "q1" => Some((1, 3)),
        "q2" => Some((4, 6)),
        "q3" => Some((7, 9)),
        "q4" => Some((10, 12)),
        "h1" => Some((1, 6)),
        "h2" => Some((7, 12)),
        _ => None,
    }
}

fn days_in(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn span(year: i32, from: u32, to: u32) -> Period {
    Period {
        first: format!("{year:04}-{from:02}-01"),
        last: format!("{year:04}-{to:02}-{:02}", days_in(year, to)),
    }
}

/// An ISO month (`2026-07`) as its period; a full date (`2026-07-14`) is no month.
fn iso_month(word: &str) -> Option<Period> {
    let (y, m) = word.split_once('-')?;
    let month = (m.len() == 2 && m.bytes().all(|b| b.is_ascii_digit()))
        .then(|| m.parse::<u32>().ok())
        .flatten()
        .filter(|m| (1..=12).contains(m))?;
    Some(span(year_of(y)?, month, month))
}

/// A day of a month written as a number, plain or ordinal (`1`, `01`, `1st`, `22nd`, `31`).
fn day_of(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    let ordinal = matches!(suffix, "" | "st" | "nd" | "rd" | "th");
    (ordinal && (1..=2).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse::<u32>().ok())
        .flatten()
        .filter(|d| (1..=31).contains(d))
}

/// The words of `query` (lower case, a closing `.` dropped) with their byte ranges; commas,
/// brackets and question or exclamation marks separate words.
fn words_at(query: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let split = |c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '/' | '?' | '!' | ';');
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in query
        .char_indices()
        .chain(std::iter::once((query.len(), ' ')))
    {
        match (split(c), start) {
            (true, Some(s)) => {
                let w = query.get(s..i).unwrap_or_default();
                let lower = w.trim_end_matches('.').to_lowercase();
                if !lower.is_empty() {
                    out.push((s..s + w.trim_end_matches('.').len(), lower));
                }
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// The number of the month the request names (capitalised, or before a year: "from March
/// 2025", "in may 2026"; not the verb "may"), for each number parameter named as a month
/// (`month`, `release_month`): a month written by its name is its number to such a parameter.
/// Nothing when the request names no month or two.
///
/// ```
/// use serde_json::json;
/// use toolwright_local::periods::month_numbers;
/// let props = json!({"year": {"type": "integer"},
///     "month": {"anyOf": [{"type": "integer"}, {"type": "null"}]}});
/// let props = props.as_object().unwrap();
/// assert_eq!(month_numbers(props, "popular new releases from March 2025"),
///            [("month".to_string(), json!(3))]);
/// assert!(month_numbers(props, "what may be popular in 2025").is_empty());
/// ```
pub fn month_numbers(
    props: &serde_json::Map<String, serde_json::Value>,
    query: &str,
) -> Vec<(String, serde_json::Value)> {
    let words = words_at(query);
    let mut months: Vec<u32> = Vec::new();
    for (i, (range, w)) in words.iter().enumerate() {
        let capital = query
            .get(range.clone())
            .and_then(|t| t.chars().next())
            .is_some_and(char::is_uppercase);
        let dated = words
            .get(i + 1)
            .is_some_and(|(_, n)| year_of(n.trim_end_matches(',')).is_some());
        if let Some(m) = month_of(w).filter(|_| (capital && w.len() >= 3) || dated)
            && !months.contains(&m)
        {
            months.push(m);
        }
    }
    let [month] = months.as_slice() else {
        return Vec::new();
    };
    props
        .iter()
        .filter(|(k, p)| {
            crate::cues::name_words(k)
                .last()
                .is_some_and(|w| w == "month")
                && crate::narrow::free_number(p)
        })
        .map(|(k, _)| (k.clone(), serde_json::Value::from(*month)))
        .collect()
}

/// The days `query` writes in words with their year, as ISO dates with the byte range each is
/// written in: "January 1 2026", "Jan 1st, 2026", "1 January 2026", "the 1st of September
/// 2026" (the range starts at the day). A day its month does not have is none.
///
/// ```
/// use toolwright_local::periods::days;
/// let q = "spent since the 1st of September 2026, or since Jan 5, 2026";
/// let d: Vec<String> = days(q).into_iter().map(|(_, d)| d).collect();
/// assert_eq!(d, ["2026-09-01", "2026-01-05"]);
/// assert_eq!(&q[days(q)[0].0.clone()], "1st of September 2026");
/// assert!(days("on February 30 2026").is_empty());
/// ```
pub fn days(query: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let words = words_at(query);
    let w = |i: usize| words.get(i).map(|(_, w)| w.as_str()).unwrap_or_default();
    let at = |i: usize| words.get(i).map(|(r, _)| r.clone()).unwrap_or_default();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        // (month, day, year, words used)
        let found = if let (Some(m), Some(d), Some(y)) =
            (month_of(w(i)), day_of(w(i + 1)), year_of(w(i + 2)))
        {
            Some((m, d, y, 3))
        } else if let (Some(d), Some(m), Some(y)) =
            (day_of(w(i)), month_of(w(i + 1)), year_of(w(i + 2)))
        {
            Some((m, d, y, 3))
        } else if let (Some(d), "of", Some(m), Some(y)) = (
            day_of(w(i)),
            w(i + 1),
            month_of(w(i + 2)),
            year_of(w(i + 3)),
        ) {
            Some((m, d, y, 4))
        } else {
            None
        };
        match found.filter(|(m, d, y, _)| *d <= days_in(*y, *m)) {
            Some((m, d, y, n)) => {
                out.push((
                    at(i).start..at(i + n - 1).end,
                    format!("{y:04}-{m:02}-{d:02}"),
                ));
                i += n;
            }
            None => i += 1,
        }
    }
    out
}

/// `query` with each day it writes in words ([`days`]) written the ISO way, outside quoted
/// texts: "what did I spend since January 1, 2026?" → "what did I spend since 2026-01-01?".
///
/// ```
/// use toolwright_local::periods::as_iso;
/// assert_eq!(as_iso("since the 1st of September 2026"), "since the 2026-09-01");
/// assert_eq!(as_iso("note 'due March 3, 2026' on 3 March 2026"),
///            "note 'due March 3, 2026' on 2026-03-03");
/// assert_eq!(as_iso("for March 2026"), "for March 2026");
/// ```
pub fn as_iso(query: &str) -> String {
    let quoted = toolwright_catalog::values::quoted_spans(query);
    let mut out = String::with_capacity(query.len());
    let mut from = 0;
    for (r, iso) in days(query) {
        if quoted.iter().any(|q| q.start < r.end && r.start < q.end) {
            continue;
        }
        out.push_str(query.get(from..r.start).unwrap_or_default());
        out.push_str(&iso);
        from = r.end;
    }
    out.push_str(query.get(from..).unwrap_or_default());
    out
}

/// The periods `query` names, in its order, without repeats (see the module documentation).
pub fn named(query: &str) -> Vec<Period> {
    let words: Vec<String> = words_at(query).into_iter().map(|(_, w)| w).collect();
    let mut out: Vec<Period> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str).unwrap_or_default();
        let prev = i
            .checked_sub(1)
            .and_then(|j| words.get(j))
            .map(String::as_str)
            .unwrap_or_default();
        // "1 September 2026", "the 1st of September 2026": a day, no month.
        let before = i
            .checked_sub(2)
            .and_then(|j| words.get(j))
            .map(String::as_str)
            .unwrap_or_default();
        let a_day = day_of(prev).is_some() || (prev == "of" && day_of(before).is_some());
        let found = if a_day && month_of(w).is_some() {
            None
        } else if let (Some(m), Some(y)) = (month_of(w), year_of(next)) {
            Some(span(y, m, m))
        } else if let (Some((a, b)), Some(y)) = (part_of_year(w), year_of(next)) {
            Some(span(y, a, b))
        } else if let (Some((a, b)), Some(y)) = (part_of_year(w), year_of(prev)) {
            Some(span(y, a, b))
        } else {
            iso_month(w)
        };
        if let Some(p) = found.filter(|p| !out.contains(p)) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(q: &str) -> (String, String) {
        let p = named(q);
        assert_eq!(p.len(), 1, "{q}: {p:?}");
        let p = p.into_iter().next().unwrap_or(Period {
            first: String::new(),
            last: String::new(),
        });
        (p.first, p.last)
    }

    #[test]
    fn months_quarters_and_halves_with_their_year() {
        assert_eq!(one("May 2026"), ("2026-05-01".into(), "2026-05-31".into()));
        assert_eq!(
            one("in sept 2025?"),
            ("2025-09-01".into(), "2025-09-30".into())
        );
        assert_eq!(
            one("for Q1 2026"),
            ("2026-01-01".into(), "2026-03-31".into())
        );
        assert_eq!(one("2024 H2"), ("2024-07-01".into(), "2024-12-31".into()));
        assert_eq!(
            one("report for 2026-02"),
            ("2026-02-01".into(), "2026-02-28".into())
        );
        assert_eq!(one("feb 2000"), ("2000-02-01".into(), "2000-02-29".into()));
        assert_eq!(one("feb 1900"), ("1900-02-01".into(), "1900-02-28".into()));
    }

    #[test]
    fn a_year_alone_a_full_date_or_a_month_without_year_is_no_period() {
        for q in [
            "since 2023",
            "invoices of 2024",
            "on 2026-03-01",
            "every May",
            "it may 20 be",
            "q3 results",
            "2026-13",
            "since 1 September 2026",
            "since the 1st of September 2026",
        ] {
            assert!(named(q).is_empty(), "{q}: {:?}", named(q));
        }
    }

    #[test]
    fn several_periods_in_order_without_repeats() {
        let p = named("compare March 2025 with March 2025 and Q4 2024");
        assert_eq!(p.len(), 2);
        assert_eq!(p.first().map(|p| p.first.as_str()), Some("2025-03-01"));
        assert_eq!(p.get(1).map(|p| p.last.as_str()), Some("2024-12-31"));
    }
}
