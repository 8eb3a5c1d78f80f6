//! Glob patterns a request describes in words.
//!
//! Listing tools take a pattern (`indexPattern` of Elasticsearch's `list_indices`, `pattern` of
//! Redis's `list` or a file search), and a request rarely writes one: it says "all indices",
//! "keys starting with user:", "every .csv file". Offered the request's spans, a small model
//! copies the request itself into the pattern (`{"indexPattern": "list all indices in
//! elasticsearch"}`). [`described`] reads the usual English for a pattern into one:
//!
//! - "starting with X" (`beginning with`, `prefixed with`, `with prefix`) → `X*`;
//! - "ending with X" (`ending in`, `with suffix`) → `*X`;
//! - "containing X" (`that contain X`, `with X in the name`) → `*X*`;
//! - a file extension written as a word (".csv files", "every .log file") → `*.csv`;
//! - a pattern written out ("user:*", `*.md`) → itself;
//! - otherwise "all", "every" or "any" → `*`.
//!
//! A prefix and a suffix together make one pattern ("starting with report and ending in .csv"
//! → `report*.csv`). Which parameters take a pattern is read from their name and
//! documentation ([`takes_glob`]): `pattern` or `glob` in the name, or "glob" / "wildcard" in
//! the description; a regular expression is not a glob. The phrases are a closed set of
//! English idioms, not fitted on data.

/// Whether parameter `name`, documented as `doc`, takes a glob pattern.
///
/// ```
/// use toolwright_local::globs::takes_glob;
/// assert!(takes_glob("indexPattern", "Index pattern of Elasticsearch indices to list"));
/// assert!(takes_glob("pattern", "Pattern to match keys (default: *)"));
/// assert!(!takes_glob("pattern", "A regular expression to search for"));
/// assert!(!takes_glob("query", "What to search for"));
/// ```
pub fn takes_glob(name: &str, doc: &str) -> bool {
    let doc = doc.to_lowercase();
    if doc.contains("regex") || doc.contains("regular expression") {
        return false;
    }
    let words = crate::cues::name_words(name);
    words.iter().any(|w| w == "pattern" || w == "glob")
        || doc.contains("glob")
        || doc.contains("wildcard")
}

/// Phrases after which the next word starts the pattern's value: its prefix.
const PREFIX: &[&[&str]] = &[
    &["starting", "with"],
    &["starts", "with"],
    &["start", "with"],
    &["beginning", "with"],
    &["begins", "with"],
    &["begin", "with"],
    &["prefixed", "with"],
    &["prefixed", "by"],
    &["with", "prefix"],
    &["with", "the", "prefix"],
];

/// Phrases after which the next word ends the pattern's value: its suffix.
const SUFFIX: &[&[&str]] = &[
    &["ending", "with"],
    &["ending", "in"],
    &["ends", "with"],
    &["ends", "in"],
    &["end", "with"],
    &["end", "in"],
    &["with", "suffix"],
    &["with", "the", "suffix"],
];

/// Phrases after which the next word is somewhere in the value.
const INFIX: &[&[&str]] = &[&["containing"], &["contain"], &["contains"]];

/// The glob patterns `query` describes (see the module docs); empty when it describes none.
///
/// ```
/// use toolwright_local::globs::described;
/// assert_eq!(described("list redis keys starting with user:"), ["user:*"]);
/// assert_eq!(described("list all indices in elasticsearch"), ["*"]);
/// assert_eq!(described("find every .csv file under /data"), ["*.csv"]);
/// assert_eq!(described("files starting with report and ending in .pdf"), ["report*.pdf"]);
/// assert!(described("show the mapping of the products index").is_empty());
/// ```
pub fn described(query: &str) -> Vec<String> {
    let words: Vec<&str> = query.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| bare(w).to_lowercase()).collect();
    let after = |phrases: &[&[&str]]| -> Option<String> {
        (0..lower.len()).find_map(|i| {
            let p = phrases.iter().find(|p| {
                p.iter()
                    .enumerate()
                    .all(|(k, w)| lower.get(i + k).is_some_and(|l| l == w))
            })?;
            let v = value(words.get(i + p.len())?, i + p.len() + 1 == words.len());
            // "containing the word TODO" is about what is inside, not a name.
            let plain = matches!(
                v.to_lowercase().as_str(),
                "the" | "a" | "an" | "this" | "that" | "some" | "any" | "my" | "your"
            );
            (!v.is_empty() && !plain).then_some(v)
        })
    };
    let (prefix, suffix, infix) = (after(PREFIX), after(SUFFIX), after(INFIX));
    let extension = words
        .iter()
        .map(|w| value(w, false))
        .find(|w| is_extension(w));
    let mut out = Vec::new();
    match (prefix, suffix.or_else(|| extension.clone())) {
        (Some(p), Some(s)) => out.push(format!("{p}*{s}")),
        (Some(p), None) => out.push(format!("{p}*")),
        (None, Some(s)) => out.push(format!("*{s}")),
        (None, None) => {}
    }
    if let Some(i) = infix {
        out.push(format!("*{i}*"));
    }
    out.extend(
        words
            .iter()
            .map(|w| value(w, false))
            .filter(|w| w.contains('*')),
    );
    if out.is_empty()
        && lower
            .iter()
            .any(|w| matches!(w.as_str(), "all" | "every" | "any"))
    {
        out.push("*".to_string());
    }
    out.dedup();
    out
}

/// A word without the punctuation around it.
fn bare(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric())
}

/// A word as a pattern's part: quotes and closing punctuation off; a final period off only at
/// the end of the request (".csv" keeps its own).
fn value(word: &str, last: bool) -> String {
    let w = word
        .trim_start_matches(['\'', '"', '`', '(', '\u{2018}', '\u{201c}'])
        .trim_end_matches([
            ',', ';', '?', '!', ')', '\'', '"', '`', '\u{2019}', '\u{201d}',
        ]);
    let w = if last && w.len() > 1 && !is_extension(w) {
        w.trim_end_matches('.')
    } else {
        w
    };
    w.to_string()
}

/// A file extension written as a word: a period, then one to five letters or digits with a
/// letter among them (`.csv`, `.md`, `.mp4`).
fn is_extension(word: &str) -> bool {
    word.strip_prefix('.').is_some_and(|e| {
        (1..=5).contains(&e.len())
            && e.chars().all(|c| c.is_ascii_alphanumeric())
            && e.chars().any(|c| c.is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idioms_become_patterns() {
        assert_eq!(described("keys containing session"), ["*session*"]);
        assert_eq!(described("indices that end with -2024"), ["*-2024"]);
        assert_eq!(described("delete keys matching 'cache:*'"), ["cache:*"]);
        assert_eq!(
            described("list the files with the prefix 'tmp_'"),
            ["tmp_*"]
        );
        // The sentence's period is not the value's.
        assert_eq!(described("show keys beginning with order."), ["order*"]);
    }

    #[test]
    fn nothing_described_gives_nothing() {
        assert!(described("files containing the word TODO").is_empty());
        assert!(described("what fields does the products index have?").is_empty());
        assert!(described("get the value of key user:7").is_empty());
    }
}
