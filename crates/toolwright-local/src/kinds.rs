//! Values named by their kind: a colour, a language, a country or a currency the request names
//! goes to the parameter that takes that kind of value, although no word of the request names
//! the parameter.
//!
//! "new todoist label waiting-on, orange" gives `add_label` the colour `orange`: the value itself
//! says what it is. Four kinds ([`Kind`], read from a parameter's name and documentation by
//! [`kind_of`]):
//!
//! - **colours**: a parameter whose name's last word is `color` or `colour` (`color`,
//!   `background_color`; not `colorScheme`, whose values are `light` and `dark`) takes the CSS
//!   named colours (CSS Color Module Level 4, the list browsers accept, `grey` spellings
//!   included) the request writes, in any case;
//! - **languages**: a parameter named for a language (`language`, `lang`, `hl`; not one
//!   documented as a programming language) takes the ISO 639-1 languages the request names
//!   ("in French", "translate into german", "Spanish subtitles"), as two-letter codes (`fr`)
//!   unless its documentation asks for names; a language's name counts where it names the
//!   language, not a cuisine or a people: after "in", "into", "to", "from" or "as", before a
//!   word such as "results" or "subtitles", or at the end of a phrase;
//! - **countries**: a parameter named for a country (`country`, `countries`; `region`, `market`
//!   or `gl` when its name or documentation says it holds a country or a code, `regionCode`)
//!   takes the ISO 3166-1 countries the request names ("results from Japan", "the UK"), as
//!   two-letter codes (`JP`; lower case when its documentation's examples are) unless its
//!   documentation asks for a full country name.
//!
//! - **currencies**: a parameter whose name holds `currency` (`currency`, `from_currency`)
//!   takes the ISO 4217 currencies the request names by name ("19.99 euros", "Swiss francs"),
//!   by code as written (`EUR`) or by sign (`$10`, `€5`, `C$20`), as codes (lower case when its
//!   documentation's three-letter examples are).
//!
//! Names are read from tables in `data/` (ISO 639-1, ISO 3166-1 and ISO 4217 with common other
//! names, provenance in their headers). A name that is also an everyday word or a given name
//! (`Polish`, `Jordan`, `Turkey`, `Won`) counts only when written with a capital, and `US`,
//! `UK` or a currency's code only as written. An `enum` parameter is left to narrowing, which
//! reads its own values.

use std::sync::OnceLock;

/// The CSS Color Module Level 4 named colours (`<named-color>`; each `gray` also as `grey`, as
/// the specification lists them), sorted for a binary search.
const COLOURS: &[&str] = &[
    "aliceblue",
    "antiquewhite",
    "aqua",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanchedalmond",
    "blue",
    "blueviolet",
    "brown",
    "burlywood",
    "cadetblue",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflowerblue",
    "cornsilk",
    "crimson",
    "cyan",
    "darkblue",
    "darkcyan",
    "darkgoldenrod",
    "darkgray",
    "darkgreen",
    "darkgrey",
    "darkkhaki",
    "darkmagenta",
    "darkolivegreen",
    "darkorange",
    "darkorchid",
    "darkred",
    "darksalmon",
    "darkseagreen",
    "darkslateblue",
    "darkslategray",
    "darkslategrey",
    "darkturquoise",
    "darkviolet",
    "deeppink",
    "deepskyblue",
    "dimgray",
    "dimgrey",
    "dodgerblue",
    "firebrick",
    "floralwhite",
    "forestgreen",
    "fuchsia",
    "gainsboro",
    "ghostwhite",
    "gold",
    "goldenrod",
    "gray",
    "green",
    "greenyellow",
    "grey",
    "honeydew",
    "hotpink",
    "indianred",
    "indigo",
    "ivory",
    "khaki",
    "lavender",
    "lavenderblush",
    "lawngreen",
    "lemonchiffon",
    "lightblue",
    "lightcoral",
    "lightcyan",
    "lightgoldenrodyellow",
    "lightgray",
    "lightgreen",
    "lightgrey",
    "lightpink",
    "lightsalmon",
    "lightseagreen",
    "lightskyblue",
    "lightslategray",
    "lightslategrey",
    "lightsteelblue",
    "lightyellow",
    "lime",
    "limegreen",
    "linen",
    "magenta",
    "maroon",
    "mediumaquamarine",
    "mediumblue",
    "mediumorchid",
    "mediumpurple",
    "mediumseagreen",
    "mediumslateblue",
    "mediumspringgreen",
    "mediumturquoise",
    "mediumvioletred",
    "midnightblue",
    "mintcream",
    "mistyrose",
    "moccasin",
    "navajowhite",
    "navy",
    "oldlace",
    "olive",
    "olivedrab",
    "orange",
    "orangered",
    "orchid",
    "palegoldenrod",
    "palegreen",
    "paleturquoise",
    "palevioletred",
    "papayawhip",
    "peachpuff",
    "peru",
    "pink",
    "plum",
    "powderblue",
    "purple",
    "rebeccapurple",
    "red",
    "rosybrown",
    "royalblue",
    "saddlebrown",
    "salmon",
    "sandybrown",
    "seagreen",
    "seashell",
    "sienna",
    "silver",
    "skyblue",
    "slateblue",
    "slategray",
    "slategrey",
    "snow",
    "springgreen",
    "steelblue",
    "tan",
    "teal",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "whitesmoke",
    "yellow",
    "yellowgreen",
];

/// Whether the parameter called `name` takes a colour: the last word of its name is `color`
/// or `colour`.
///
/// ```
/// use toolwright_local::kinds::colour_param;
/// assert!(colour_param("color") && colour_param("background_colour") && colour_param("textColor"));
/// assert!(!colour_param("colorScheme") && !colour_param("forcedColors") && !colour_param("name"));
/// ```
pub fn colour_param(name: &str) -> bool {
    crate::cues::name_words(name)
        .last()
        .is_some_and(|w| w == "color" || w == "colour")
}

/// Whether the request writes a colour ([`colours_named`]).
///
/// ```
/// use toolwright_local::kinds::colour_written;
/// assert!(colour_written("a teal label") && colour_written("make it #ff8800"));
/// assert!(!colour_written("create a label called regression") && !colour_written("issue #123"));
/// ```
pub fn colour_written(query: &str) -> bool {
    !colours_named(query).is_empty()
}

/// The hex colour codes the request writes (`#1f77b4`, `#fff`; not `#123`, an issue number).
fn hex_colours(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in query.match_indices('#') {
        let rest = query.get(i + 1..).unwrap_or_default();
        let n = rest.chars().take_while(char::is_ascii_hexdigit).count();
        let code = rest.get(..n).unwrap_or_default();
        let ends = !rest.chars().nth(n).is_some_and(char::is_alphanumeric);
        if matches!(n, 3 | 4 | 6 | 8) && ends && code.chars().any(|c| c.is_ascii_alphabetic()) {
            out.push(format!("#{code}"));
        }
    }
    out
}

/// The colours the request names, as written, each once, then the hex codes it writes.
///
/// ```
/// use toolwright_local::kinds::colours_named;
/// assert_eq!(colours_named("new todoist label waiting-on, orange"), ["orange"]);
/// assert_eq!(colours_named("make it Navy or teal, not navy"), ["Navy", "teal"]);
/// assert!(colours_named("add a label for the orangery").is_empty());
/// assert_eq!(colours_named("a label, #ff8800"), ["#ff8800"]);
/// ```
pub fn colours_named(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, body) in crate::spans::word_ranges(query) {
        let Some(w) = query.get(body) else { continue };
        let lower = w.to_lowercase();
        if COLOURS.binary_search(&lower.as_str()).is_ok()
            && !out.iter().any(|o| o.to_lowercase() == lower)
        {
            out.push(w.to_string());
        }
    }
    out.extend(hex_colours(query));
    out
}

/// A kind of value a parameter takes, named in a request by what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A CSS named colour, as written.
    Colour,
    /// A language, in the given form.
    Language(Form),
    /// A country, in the given form.
    Country(Form),
    /// A currency, as its ISO 4217 code, in upper case when `upper`.
    Currency {
        /// Upper case (`EUR`) rather than lower (`eur`).
        upper: bool,
    },
}

/// How a parameter writes a language or a country.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The two-letter ISO code, in upper case when `upper`.
    Code {
        /// Upper case (`JP`) rather than lower (`jp`).
        upper: bool,
    },
    /// The English name (`Japan`, `United States`).
    Name,
}

/// Words of a parameter's name that say it holds a language.
const LANGUAGE_WORDS: &[&str] = &["language", "languages", "lang", "hl"];

/// Words of a parameter's name that say it holds a country.
const COUNTRY_WORDS: &[&str] = &["country", "countries"];

/// Words of a parameter's name that say it holds a country when "code" ends the name or its
/// documentation says "country" (`regionCode`; not an undocumented `region`, which may be a
/// cloud region).
const REGION_WORDS: &[&str] = &["region", "market", "gl"];

/// What parameter `name`, documented by `documented`, takes, when it is a kind of value this
/// module reads.
///
/// ```
/// use toolwright_local::kinds::{kind_of, Form, Kind};
/// assert_eq!(kind_of("textColor", ""), Some(Kind::Colour));
/// assert_eq!(kind_of("language", "IETF language tag (e.g. \"en\", \"fr\")"),
///            Some(Kind::Language(Form::Code { upper: false })));
/// assert_eq!(kind_of("country", "Must be a full country name (e.g., 'Japan')"),
///            Some(Kind::Country(Form::Name)));
/// assert_eq!(kind_of("regionCode", ""), Some(Kind::Country(Form::Code { upper: true })));
/// assert_eq!(kind_of("region", ""), None);
/// assert_eq!(kind_of("language", "The programming language of the snippet"), None);
/// ```
pub fn kind_of(name: &str, documented: &str) -> Option<Kind> {
    if colour_param(name) {
        return Some(Kind::Colour);
    }
    let words = crate::cues::name_words(name);
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    let doc = documented.to_lowercase();
    let last = words.last().map_or("", String::as_str);
    if has(LANGUAGE_WORDS)
        && (LANGUAGE_WORDS.contains(&last) || last == "code" || last == "codes")
        && !doc.contains("programming")
    {
        return Some(Kind::Language(form(&doc, documented, false)));
    }
    let coded = last == "code" || last == "codes" || doc.contains("country");
    if has(COUNTRY_WORDS) || (has(REGION_WORDS) && coded) {
        return Some(Kind::Country(form(&doc, documented, true)));
    }
    if has(&["currency", "currencies"]) {
        let examples = quoted(documented, 3);
        let upper = examples.is_empty()
            || !examples
                .iter()
                .all(|e| e.chars().all(|c| c.is_ascii_lowercase()));
        return Some(Kind::Currency { upper });
    }
    None
}

/// The quoted words of `raw` that are `len` ASCII letters ('en', "USD").
fn quoted(raw: &str, len: usize) -> Vec<&str> {
    raw.split(['\'', '"', '`'])
        .skip(1)
        .step_by(2)
        .filter(|e| e.len() == len && e.chars().all(|c| c.is_ascii_alphabetic()))
        .collect()
}

/// The form documentation `doc` (lower-cased; `raw` as written) asks for: a name when it says
/// "name" and not "code", else a code, in the case its two-letter quoted examples use
/// (`upper_default` without examples).
fn form(doc: &str, raw: &str, upper_default: bool) -> Form {
    let coded = ["code", "tag", "iso", "bcp", "ietf", "639", "3166", "alpha"]
        .iter()
        .any(|w| doc.contains(w));
    if doc.contains("full") && doc.contains("name") || doc.contains("name") && !coded {
        return Form::Name;
    }
    let examples = quoted(raw, 2);
    let upper = match examples.first() {
        Some(_) => examples
            .iter()
            .all(|e| e.chars().all(|c| c.is_ascii_uppercase())),
        None => upper_default,
    };
    Form::Code { upper }
}

/// The values of `kind` the request `query` names, in the form the kind asks for, each once, in
/// the order the request names them.
///
/// ```
/// use toolwright_local::kinds::{named, Form, Kind};
/// let code = Form::Code { upper: false };
/// assert_eq!(named(Kind::Language(code), "answer in French, then in german"), ["fr", "de"]);
/// assert!(named(Kind::Language(code), "find French restaurants nearby").is_empty());
/// assert_eq!(named(Kind::Country(Form::Code { upper: true }), "news from the UK and South Korea"),
///            ["GB", "KR"]);
/// assert_eq!(named(Kind::Country(Form::Name), "prefer results from the USA"), ["United States"]);
/// assert!(named(Kind::Country(Form::Name), "send it to us, or to jordan").is_empty());
/// ```
pub fn named(kind: Kind, query: &str) -> Vec<String> {
    let (table, form, in_context): (&Table, Form, bool) = match kind {
        Kind::Colour => return colours_named(query),
        Kind::Language(f) => (languages(), f, true),
        Kind::Country(f) => (countries(), f, false),
        Kind::Currency { upper } => return currencies_named(query, upper),
    };
    let mut out: Vec<String> = Vec::new();
    for (entry, at, end) in table.find(query) {
        if in_context && !names_language(query, at, end) {
            continue;
        }
        let v = match form {
            Form::Code { upper: true } => entry.code.to_uppercase(),
            Form::Code { upper: false } => entry.code.to_lowercase(),
            Form::Name => entry.name.clone(),
        };
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Currency signs and the currency each stands for; a `$` after letters is that country's
/// dollar ([`DOLLAR_PREFIXES`]).
const SIGNS: &[(char, &str)] = &[
    ('$', "USD"),
    ('€', "EUR"),
    ('£', "GBP"),
    ('¥', "JPY"),
    ('₹', "INR"),
    ('₩', "KRW"),
    ('₽', "RUB"),
    ('₺', "TRY"),
    ('₪', "ILS"),
    ('₫', "VND"),
    ('฿', "THB"),
    ('₱', "PHP"),
    ('₦', "NGN"),
    ('₴', "UAH"),
];

/// Letters written before `$` and the dollar they make (`C$`, `A$`, `R$` for the real).
const DOLLAR_PREFIXES: &[(&str, &str)] = &[
    ("US", "USD"),
    ("C", "CAD"),
    ("CA", "CAD"),
    ("A", "AUD"),
    ("AU", "AUD"),
    ("NZ", "NZD"),
    ("HK", "HKD"),
    ("S", "SGD"),
    ("R", "BRL"),
    ("MX", "MXN"),
];

/// The currencies `query` names by name ("19.99 euros"), by ISO code as written (`EUR`) or by
/// sign (`$10`, `€5`, `C$20`), as ISO 4217 codes in upper case when `upper`, each once, in
/// the order the request names them.
fn currencies_named(query: &str, upper: bool) -> Vec<String> {
    let mut found: Vec<(usize, String)> = currencies()
        .find(query)
        .into_iter()
        .map(|(e, at, _)| (at, e.code.clone()))
        .collect();
    found.extend(signs(query).into_iter().map(|(at, _, code)| (at, code)));
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<String> = Vec::new();
    for (_, code) in found {
        let v = if upper { code } else { code.to_lowercase() };
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The currency signs of `query`: where each stands, where what follows it starts, and the
/// ISO 4217 code it stands for (a `$` after a country's letters is that country's dollar).
fn signs(query: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (at, c) in query.char_indices() {
        let Some((_, code)) = SIGNS.iter().find(|(sign, _)| *sign == c) else {
            continue;
        };
        let before = query.get(..at).unwrap_or("");
        let letters = &before[before
            .trim_end_matches(|c: char| c.is_ascii_uppercase())
            .len()..];
        let code = match DOLLAR_PREFIXES
            .iter()
            .find(|(p, _)| c == '$' && *p == letters)
        {
            Some((_, dollar)) => dollar,
            None => code,
        };
        out.push((at, at + c.len_utf8(), (*code).to_string()));
    }
    out
}

/// The currencies `query` gives an amount in, as ISO 4217 codes in upper case: a currency named
/// or written as a code right after a number ("how many dollars is 5000 yen" → `JPY`, "250
/// GBP"), or a sign right before one (`$10`, `€ 5`). The source of a conversion.
///
/// ```
/// use toolwright_local::kinds::priced_currencies;
/// assert_eq!(priced_currencies("how many dollars is 5000 yen?"), ["JPY"]);
/// assert_eq!(priced_currencies("convert $12.50 to euros"), ["USD"]);
/// assert!(priced_currencies("dollars to yen rate").is_empty());
/// ```
pub fn priced_currencies(query: &str) -> Vec<String> {
    let after_number = |at: usize| {
        query
            .get(..at)
            .unwrap_or("")
            .trim_end()
            .ends_with(|c: char| c.is_ascii_digit())
    };
    let mut found: Vec<(usize, String)> = currencies()
        .find(query)
        .into_iter()
        .filter(|(_, at, _)| after_number(*at))
        .map(|(e, at, _)| (at, e.code.to_uppercase()))
        .collect();
    for (at, next, code) in signs(query) {
        let before_number = query
            .get(next..)
            .unwrap_or("")
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit());
        if before_number {
            found.push((at, code.to_uppercase()));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<String> = Vec::new();
    for (_, code) in found {
        if !out.contains(&code) {
            out.push(code);
        }
    }
    out
}

/// Words before a language's name that make it the language ("in French", "into German").
const LANGUAGE_BEFORE: &[&str] = &["in", "into", "to", "from", "as"];

/// Words after a language's name that make it the language ("Spanish subtitles").
const LANGUAGE_AFTER: &[&str] = &[
    "language",
    "languages",
    "results",
    "text",
    "version",
    "versions",
    "translation",
    "subtitles",
    "captions",
    "transcript",
    "transcripts",
    "content",
    "interface",
    "only",
    "speakers",
];

/// Whether the language name at `at..end` of `query` names the language: after
/// [`LANGUAGE_BEFORE`], before [`LANGUAGE_AFTER`], or where a phrase ends (punctuation or the
/// request's end after it).
fn names_language(query: &str, at: usize, end: usize) -> bool {
    let before = query.get(..at).unwrap_or("");
    let prev = before
        .split(|c: char| !c.is_alphanumeric())
        .rfind(|w| !w.is_empty())
        .map(str::to_lowercase);
    let after = query.get(end..).unwrap_or("");
    let gap_ends = after
        .chars()
        .take_while(|c| !c.is_alphanumeric())
        .any(|c| !c.is_whitespace() && !['\'', '"'].contains(&c));
    let next = after
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .map(str::to_lowercase);
    let adjacent = before.trim_end().len() + 1 >= before.len();
    (adjacent && prev.is_some_and(|p| LANGUAGE_BEFORE.contains(&p.as_str())))
        || next.is_none()
        || gap_ends
        || next.is_some_and(|n| LANGUAGE_AFTER.contains(&n.as_str()))
}

/// How a name in a table must be written to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    /// In any case.
    Any,
    /// With a capital first letter (the name is also an everyday word or a given name).
    Capital,
    /// Exactly as the table writes it (`US`, `UK`).
    Exact,
}

/// One code of a table and its names.
#[derive(Debug)]
struct Entry {
    code: String,
    /// The first name: the one a parameter asking for names gets.
    name: String,
    /// Each name's words (lower case, or as written for [`Case::Exact`]) and how it must be
    /// written.
    names: Vec<(Vec<String>, Case)>,
}

/// A table of codes and names (`data/*.tsv`).
#[derive(Debug)]
struct Table {
    entries: Vec<Entry>,
    /// For each first word of a name (lower case), the entries and names that start with it.
    by_first: std::collections::HashMap<String, Vec<(usize, usize)>>,
}

/// The alphanumeric runs of `text` with their byte ranges.
fn runs(text: &str) -> Vec<(usize, &str)> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect()
}

impl Table {
    fn parse(src: &str) -> Self {
        let entries: Vec<Entry> = src
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let (code, names) = l.split_once('\t')?;
                let names: Vec<(Vec<String>, Case)> = names
                    .split('|')
                    .map(|n| {
                        let (case, n) = match n.as_bytes().first() {
                            Some(b'*') => (Case::Capital, &n[1..]),
                            Some(b'=') => (Case::Exact, &n[1..]),
                            _ => (Case::Any, n),
                        };
                        let word = |w: &str| match case {
                            Case::Exact => w.to_string(),
                            _ => w.to_lowercase(),
                        };
                        (runs(n).into_iter().map(|(_, w)| word(w)).collect(), case)
                    })
                    .collect();
                let first = names.first()?.0.join(" ");
                let name = l
                    .split_once('\t')
                    .and_then(|(_, n)| n.split('|').next())
                    .map_or(first, |n| n.trim_start_matches(['*', '=']).to_string());
                Some(Entry {
                    code: code.to_string(),
                    name,
                    names,
                })
            })
            .collect();
        let mut by_first: std::collections::HashMap<String, Vec<(usize, usize)>> =
            std::collections::HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            for (j, (name, _)) in e.names.iter().enumerate() {
                if let Some(first) = name.first() {
                    by_first
                        .entry(first.to_lowercase())
                        .or_default()
                        .push((i, j));
                }
            }
        }
        Table { entries, by_first }
    }

    /// The entries `query` names, with the byte range of each naming, longest name first where
    /// names overlap, in the order of the request.
    fn find(&self, query: &str) -> Vec<(&Entry, usize, usize)> {
        let words = runs(query);
        let lower: Vec<String> = words.iter().map(|(_, w)| w.to_lowercase()).collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let mut best: Option<(&Entry, usize)> = None;
            let starting = lower
                .get(i)
                .and_then(|w| self.by_first.get(w))
                .map_or(&[][..], Vec::as_slice);
            for &(ei, ni) in starting {
                let Some(e) = self.entries.get(ei) else {
                    continue;
                };
                if let Some((name, case)) = e.names.get(ni) {
                    let n = name.len();
                    if n == 0 || n <= best.map_or(0, |(_, m)| m) || i + n > words.len() {
                        continue;
                    }
                    let (Some(here), Some(low)) = (words.get(i..i + n), lower.get(i..i + n)) else {
                        continue;
                    };
                    let fits = match case {
                        Case::Exact => here.iter().zip(name).all(|((_, q), w)| q == w),
                        _ => low == name.as_slice(),
                    } && (*case != Case::Capital
                        || here
                            .first()
                            .is_some_and(|(_, q)| q.starts_with(char::is_uppercase)));
                    if fits {
                        best = Some((e, n));
                    }
                }
            }
            match best.and_then(|(e, n)| Some((e, n, words.get(i)?, words.get(i + n - 1)?))) {
                Some((e, n, (start, _), (last, w))) => {
                    out.push((e, *start, last + w.len()));
                    i += n;
                }
                None => i += 1,
            }
        }
        out
    }
}

/// The ISO 639-1 languages.
fn languages() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| Table::parse(include_str!("../data/languages.tsv")))
}

/// The ISO 4217 currencies.
fn currencies() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| Table::parse(include_str!("../data/currencies.tsv")))
}

/// The ISO 3166-1 countries.
fn countries() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| Table::parse(include_str!("../data/countries.tsv")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_for_binary_search() {
        assert!(COLOURS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn the_iso_tables_are_whole() {
        assert_eq!(languages().entries.len(), 184);
        assert_eq!(countries().entries.len(), 249);
        for e in languages().entries.iter().chain(&countries().entries) {
            assert_eq!(e.code.len(), 2, "{e:?}");
            assert!(e.names.iter().all(|(n, _)| !n.is_empty()), "{e:?}");
        }
    }

    #[test]
    fn currencies_by_name_code_and_sign() {
        let c = |q: &str| named(Kind::Currency { upper: true }, q);
        assert_eq!(c("price prod_Q8xYz at 19.99 euros"), ["EUR"]);
        assert_eq!(
            c("coupon: $10 off, or C$12, or 5 GBP"),
            ["USD", "CAD", "GBP"]
        );
        assert_eq!(c("100 Swiss francs in yen"), ["CHF", "JPY"]);
        assert!(c("we won the deal, try it for all of us").is_empty());
        assert_eq!(named(Kind::Currency { upper: false }, "€5"), ["eur"]);
        assert_eq!(currencies().entries.len(), 153);
    }

    #[test]
    fn longer_names_win_and_marked_names_need_their_case() {
        let code = Form::Code { upper: true };
        let c = |q: &str| named(Kind::Country(code), q);
        assert_eq!(c("flights to Papua New Guinea"), ["PG"]);
        assert_eq!(c("search in Guinea-Bissau"), ["GW"]);
        assert_eq!(c("Turkey, then Georgia"), ["TR", "GE"]);
        assert!(c("roast turkey recipes for a georgia peach").is_empty());
        assert_eq!(c("what's the US rate"), ["US"]);
        assert_eq!(c("results from japan please"), ["JP"]);
        assert_eq!(c("Côte d'Ivoire or cote d'ivoire"), ["CI"]);
        let l = |q: &str| named(Kind::Language(Form::Code { upper: false }), q);
        assert_eq!(l("translate it into Spanish"), ["es"]);
        assert_eq!(l("german subtitles"), ["de"]);
        assert_eq!(l("summaries in Japanese."), ["ja"]);
        assert!(l("polish the text in my draft").is_empty());
        assert!(l("where do Thai people eat?").is_empty());
        assert_eq!(l("reply as Polish"), ["pl"]);
        assert_eq!(named(Kind::Language(Form::Name), "in greek"), ["Greek"]);
    }
}
