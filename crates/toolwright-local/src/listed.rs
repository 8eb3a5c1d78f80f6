//! Values a free-text parameter's documentation lists as its only choices.
//!
//! Python MCP servers often type a choice as a plain `str` and name the choices in words: the
//! parameter's description, or the `Args:` section of the tool's docstring, says "One of
//! 'httpx', 'curl' or 'auto'", "Options: 'markdown' (default), 'wiki' or 'storage'". The
//! narrowing pass reads such a list as the parameter's allowed values when the request names
//! one of them, exactly as it reads an `enum`. Examples are not choices: a sentence saying
//! "e.g.", "such as", "example" or "like" lists none.

use serde_json::Value;

/// Words that make a sentence's quoted values examples rather than the only choices.
const EXAMPLE_MARKERS: [&str; 6] = ["e.g", "such as", "example", " like ", "for instance", "i.e"];

/// The numbered codes `text` glosses, when it glosses two or more: "0=enabled, 1=disabled",
/// "Storage type: 0=float, 1=char, 2=log", "0 - not classified, 1 - information". Each gloss
/// runs from its `=`, `:` or dash to the next comma, semicolon, full stop, bracket or code.
///
/// ```
/// use toolwright_local::listed::numbered_codes;
/// let c = numbered_codes("Storage type to read: 0=float, 1=char, 2=log. Must match.").unwrap();
/// assert_eq!(c, [(0, "float".to_string()), (1, "char".into()), (2, "log".into())]);
/// assert_eq!(numbered_codes("0 - not classified, 1 - information").unwrap()[0].1, "not classified");
/// assert!(numbered_codes("Severity 0-5.").is_none());
/// assert!(numbered_codes("Returns 10: the count").is_none());
/// ```
pub fn numbered_codes(text: &str) -> Option<Vec<(i64, String)>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|(_, c)| *c);
    let mut out: Vec<(i64, String)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = at(i).is_some_and(|c| c.is_ascii_digit())
            && (i == 0 || at(i - 1).is_some_and(|c| !c.is_alphanumeric() && c != '.'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while at(j).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        let code_end = j;
        while at(j) == Some(' ') {
            j += 1;
        }
        if !matches!(at(j), Some('=' | ':' | '-' | '\u{2013}')) {
            i = j.max(i + 1);
            continue;
        }
        j += 1;
        while at(j) == Some(' ') {
            j += 1;
        }
        // The gloss: words of letters up to a closing mark or the next code.
        let from = j;
        while let Some(c) = at(j) {
            let next_code = c.is_ascii_digit() && at(j.wrapping_sub(1)) == Some(' ');
            if matches!(c, ',' | ';' | '.' | '(' | ')' | '\n') || next_code {
                break;
            }
            j += 1;
        }
        let byte = |k: usize| chars.get(k).map_or(text.len(), |(b, _)| *b);
        let gloss = text.get(byte(from)..byte(j)).unwrap_or("").trim();
        let worded = gloss.chars().next().is_some_and(char::is_alphabetic)
            && gloss
                .chars()
                .all(|c| c.is_alphabetic() || c == ' ' || c == '-');
        let code = text
            .get(byte(i)..byte(code_end))
            .and_then(|c| c.parse::<i64>().ok());
        if let (true, Some(code)) = (worded, code)
            && !out.iter().any(|(c, _)| *c == code)
        {
            out.push((code, gloss.to_lowercase()));
        }
        i = j.max(i + 1);
    }
    (out.len() >= 2).then_some(out)
}

/// The text that documents parameter `name`: its own description, or else the line of the
/// tool description's argument list that starts with its name (`name: …`, `- name: …`,
/// `name (str): …`).
pub fn documentation<'a>(name: &str, schema: &'a Value, tool_description: &'a str) -> &'a str {
    if let Some(d) = schema.get("description").and_then(Value::as_str)
        && !d.trim().is_empty()
    {
        return d;
    }
    // An optional value's own branch may carry it (`anyOf: [{"type": "string", "description":
    // …}, {"type": "null"}]`).
    let branch = schema
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| a.get("description").and_then(Value::as_str))
        .find(|d| !d.trim().is_empty());
    if let Some(d) = branch {
        return d;
    }
    argument_entry(name, tool_description).unwrap_or("")
}

/// The entry of the tool description's argument list for `name`: from after `name:` to the end
/// of its last continuation line (a docstring wraps an entry onto lines indented deeper than
/// its own: `classification: Optional severity filter; one of "Class I",` / `"Class II",
/// "Class III".`).
fn argument_entry<'a>(name: &str, text: &'a str) -> Option<&'a str> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let start = offset;
        offset += line.len();
        let l = line.trim_start().trim_start_matches(['-', '*', ' ']);
        let Some(rest) = l.strip_prefix(name) else {
            continue;
        };
        let rest = match rest.strip_prefix(" (") {
            Some(typed) => typed.split_once(')').map_or("", |t| t.1),
            None => rest,
        };
        let Some(body) = rest.strip_prefix(':') else {
            continue;
        };
        let from = start + (line.len() - body.len());
        let own = indent(line);
        let mut end = offset;
        for next in lines.by_ref() {
            if next.trim().is_empty() || indent(next) <= own {
                break;
            }
            end += next.len();
        }
        return text.get(from..end).map(str::trim);
    }
    None
}

/// The values `text` lists as the only choices: the quoted words ('x', "x" or `x`) of a
/// sentence that says "one of", "options" or "or" and gives no example marker, when there are
/// two or more of them; or a list of three codes or more joined by commas without spaces that
/// ends a sentence after a dash or a colon ("Data period - 1d,5d,1mo,3mo,6mo,1y,ytd,max"), or
/// with spaces after a phrase that says so ("Valid values include: companies, contacts, deals";
/// "value : HTTPS, HTTP or PING").
pub fn listed_values(text: &str) -> Option<Vec<String>> {
    quoted_choices(text)
        .or_else(|| code_list(text))
        .or_else(|| one_of_words(text))
}

/// The words a sentence that opens "One of" lists, joined by commas (the last by "or" or
/// "and" too), three or more, each one word: "One of attractions, museums, parks, nightlife.
/// Defaults to attractions." (see [`listed_values`]).
fn one_of_words(text: &str) -> Option<Vec<String>> {
    // A docstring wraps its lines inside a sentence.
    let flat = text.replace('\n', " ");
    sentences(&flat).into_iter().find_map(|s| {
        let s = s.trim();
        let rest = s
            .get(..7)
            .filter(|h| h.eq_ignore_ascii_case("one of "))
            .and_then(|_| s.get(7..))?;
        let word = |v: &str| {
            !v.is_empty()
                && v.len() <= 24
                && v.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        };
        let vals: Vec<String> = rest
            .trim_end_matches('.')
            .split(',')
            .flat_map(joined_items)
            .filter(|v| !v.is_empty())
            .collect();
        (vals.len() >= 3 && vals.iter().all(|v| word(v))).then_some(vals)
    })
}

/// Phrases that introduce a sentence's list of a parameter's values ("Valid values include:
/// appointments, companies, contacts").
const VALUE_PHRASES: [&str; 6] = [
    "valid values",
    "allowed values",
    "possible values",
    "supported values",
    "accepted values",
    "valid options",
];

/// The comma-joined codes that end a sentence of `text` after " - " or ": " (see
/// [`listed_values`]), without an example marker; after a phrase such as "Valid values
/// include:", the words may be joined by ", " too.
fn code_list(text: &str) -> Option<Vec<String>> {
    sentences(text).into_iter().find_map(|s| {
        let lower = s.to_lowercase();
        if EXAMPLE_MARKERS.iter().any(|m| lower.contains(m)) {
            return None;
        }
        let (head, tail) = s.rsplit_once(" - ").or_else(|| s.rsplit_once(": "))?;
        let tail = tail.trim();
        let code = |v: &str| {
            !v.is_empty()
                && v.len() <= 24
                && v.chars().all(|c| c.is_alphanumeric() || "_-./".contains(c))
        };
        // "Valid values include: …", or a sentence that opens "value :" or "values:".
        let lead = head.trim().to_lowercase();
        let phrased = VALUE_PHRASES.iter().any(|p| lead.contains(p))
            || matches!(lead.as_str(), "value" | "values")
            || choice_label(&lead);
        // Codes written as such (`this_month, last_month, last_30_days`) may be joined by ", "
        // too: no English word has an underscore.
        let snake =
            tail.split(',').filter(|v| v.contains('_')).count() * 2 >= tail.split(',').count();
        let vals: Vec<String> = tail
            .split(',')
            .flat_map(|v| {
                if snake && !phrased {
                    return vec![v.trim().trim_end_matches('.').to_string()];
                }
                if !phrased {
                    return vec![v.to_string()];
                }
                // "HTTPS, HTTP or PING": the last two are joined by "or" or "and".
                joined_items(v)
            })
            .collect();
        (vals.len() >= 3 && vals.iter().all(|v| code(v))).then_some(vals)
    })
}

/// Whether `lead` (lower case) is a short label naming a kind of choice ("document kind",
/// "status", "sort order"): a list after it and a colon is the choices ("Document kind: vat,
/// proforma, correction, receipt").
fn choice_label(lead: &str) -> bool {
    let words: Vec<&str> = lead.split_whitespace().collect();
    words.len() <= 3
        && words.last().is_some_and(|w| {
            matches!(
                *w,
                "kind"
                    | "kinds"
                    | "type"
                    | "types"
                    | "status"
                    | "mode"
                    | "format"
                    | "category"
                    | "level"
                    | "order"
                    | "state"
                    | "class"
                    | "visibility"
                    | "priority"
                    | "role"
                    | "scope"
            )
        })
}

/// The items of one comma-separated part of a list, where the last two are joined by "or" or
/// "and" ("HTTP or PING" → `HTTP`, `PING`; "and bars" → `bars`).
fn joined_items(part: &str) -> Vec<String> {
    part.trim()
        .split(" or ")
        .flat_map(|v| v.split(" and "))
        .map(|v| {
            let v = v.trim();
            v.strip_prefix("and ")
                .or_else(|| v.strip_prefix("or "))
                .unwrap_or(v)
                .trim()
                .to_string()
        })
        .collect()
}

/// The quoted choices of `text` (see [`listed_values`]).
fn quoted_choices(text: &str) -> Option<Vec<String>> {
    let text = unwrapped(text);
    sentences(&text).into_iter().find_map(|s| {
        let lower = s.to_lowercase();
        // A union written with bars ("'infrastructure' | 'personal' | 'home'") chooses too.
        let chooses = ["one of", "options", " or ", "' | '", "\" | \""]
            .iter()
            .any(|m| lower.contains(m));
        if !chooses || EXAMPLE_MARKERS.iter().any(|m| lower.contains(m)) {
            return None;
        }
        // Choices may be short phrases ("Class I", "Class II").
        let mut vals: Vec<String> = Vec::new();
        for v in quoted_runs(s, 3) {
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        (vals.len() >= 2).then_some(vals)
    })
}

/// The example values of a filter: the quoted words of a sentence that gives examples
/// ("Filter by item status (e.g., 'active', 'resolved', 'muted')"), two or more, each one word
/// (letters, digits, `_` or `-`). Not choices: a request may name another value. The narrowing
/// pass reads them as a filter's values only where the request names one
/// ([`crate::narrow::narrow_for_query`]).
///
/// ```
/// use toolwright_local::listed::example_values;
/// assert_eq!(example_values("Filter by environment (e.g., 'production', 'staging')"),
///            Some(vec!["production".to_string(), "staging".to_string()]));
/// assert_eq!(example_values("The channel, e.g. '#general'"), None);
/// assert_eq!(example_values("One of 'a' or 'b'"), None);
/// ```
pub fn example_values(text: &str) -> Option<Vec<String>> {
    sentences(text).into_iter().find_map(|s| {
        let lower = s.to_lowercase();
        if !EXAMPLE_MARKERS.iter().any(|m| lower.contains(m)) {
            return None;
        }
        let word = |v: &str| {
            !v.is_empty()
                && v.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        };
        let mut vals: Vec<String> = Vec::new();
        for v in quoted_words(s) {
            if !word(&v) {
                return None;
            }
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        (vals.len() >= 2).then_some(vals)
    })
}

/// `text` cut at each ". " and line break (a period inside a quote, as in 'v1.2', does not cut).
/// `text` with the lines a docstring wraps inside a sentence joined: a line break stays after
/// a sentence's or a heading's end (`.` `:` `;` `!` `?`) and before a bullet (`-` `*`).
fn unwrapped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line.trim_end());
        let Some(next) = lines.peek() else {
            break;
        };
        let ended = line.trim_end().ends_with(['.', ':', ';', '!', '?']) || line.trim().is_empty();
        let bullet = next.trim_start().starts_with(['-', '*']) || next.trim().is_empty();
        out.push(if ended || bullet { '\n' } else { ' ' });
    }
    out
}

fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quote) = (0, None::<char>);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"' | '`') if starts_word(text, i) => quote = Some(c),
            (None, '\n') => {
                out.push(text.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            (None, '.') if chars.peek().is_none_or(|(_, n)| n.is_whitespace()) => {
                out.push(text.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text.get(start..).unwrap_or(""));
    out.retain(|s| !s.trim().is_empty());
    out
}

/// Whether a quote at byte `i` opens one (it does not follow a letter, as in "don't").
fn starts_word(text: &str, i: usize) -> bool {
    text.get(..i)
        .and_then(|b| b.chars().next_back())
        .is_none_or(|p| !p.is_alphanumeric())
}

/// The quoted words of `s`: 'x', "x" or `x`, one token of letters, digits, `_`, `-`, `.` or
/// `/` (an apostrophe inside a word, as in "server's", opens nothing).
pub(crate) fn quoted_words(s: &str) -> Vec<String> {
    quoted_runs(s, 1)
}

/// The quoted texts of `s` of at most `most` tokens each (see [`quoted_words`]).
fn quoted_runs(s: &str, most: usize) -> Vec<String> {
    let token = |c: char| c.is_alphanumeric() || "_-./".contains(c);
    let mut out = Vec::new();
    for (i, q) in s.char_indices() {
        if !matches!(q, '\'' | '"' | '`') || !starts_word(s, i) {
            continue;
        }
        let rest = s.get(i + 1..).unwrap_or("");
        let mut len = 0;
        for word in 0..most {
            let tail = rest.get(len..).unwrap_or("");
            let step = usize::from(word > 0 && tail.starts_with(' '));
            let more: usize = tail
                .get(step..)
                .unwrap_or("")
                .chars()
                .take_while(|c| token(*c))
                .map(char::len_utf8)
                .sum();
            if (word > 0 && step == 0) || more == 0 {
                break;
            }
            len += step + more;
        }
        let closes = rest.get(len..).is_some_and(|r| r.starts_with(q));
        if len > 0 && closes {
            out.push(rest.get(..len).unwrap_or("").to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_docstring_entry_goes_on_over_its_deeper_lines() {
        // Set L's openFDA docstrings (read, 2026-12-07).
        let d = "Search recalls.\n\n    Args:\n        drug_name: Drug name to search.\n            \
                 Optional.\n        classification: Optional severity filter; one of \"Class I\",\n            \
                 \"Class II\", \"Class III\".\n        status: Optional status filter.\n\n    \
                 Returns:\n        A dict.";
        let none = json!({});
        let c = documentation("classification", &none, d);
        assert!(c.starts_with("Optional severity") && c.ends_with("\"Class III\"."));
        assert_eq!(
            listed_values(c).unwrap(),
            ["Class I", "Class II", "Class III"]
        );
        assert_eq!(documentation("status", &none, d), "Optional status filter.");
        assert_eq!(
            documentation("drug_name", &none, d),
            "Drug name to search.\n            Optional."
        );
    }

    #[test]
    fn a_union_written_with_bars_lists_the_choices() {
        let d =
            "DD-278 scope filter: 'infrastructure' | 'personal' | 'home'. Filtered client-side.";
        assert_eq!(
            listed_values(d).unwrap(),
            ["infrastructure", "personal", "home"]
        );
    }

    #[test]
    fn a_short_label_and_a_colon_list_the_choices() {
        // Set L's InvoiceOcean (read, 2026-12-07).
        let d = "Document kind: vat, proforma, correction, receipt, advance, final, estimate";
        assert_eq!(listed_values(d).unwrap().len(), 7);
        assert!(listed_values("Tags to add: red, green, blue").is_none());
    }

    #[test]
    fn choices_are_listed_examples_are_not() {
        let d = "Optional override. One of 'httpx' (lightweight), 'curl' (Chrome TLS, v1.2), or \
                 'auto' (try httpx). Leave unset to use the default.";
        assert_eq!(listed_values(d).unwrap(), ["httpx", "curl", "auto"]);
        let d = "Options: 'markdown' (default), 'wiki', 'storage', or 'xhtml'.";
        assert_eq!(
            listed_values(d).unwrap(),
            ["markdown", "wiki", "storage", "xhtml"]
        );
        assert_eq!(
            listed_values("How to group the data - \"column\" or \"ticker\"").unwrap(),
            ["column", "ticker"]
        );
        assert!(listed_values("Branch to push to (e.g., 'main' or 'master')").is_none());
        assert!(listed_values("A short code like 'DEV', 'TEAM', or 'DOC'").is_none());
        assert!(listed_values("One of 'a' only").is_none());
        assert!(listed_values("The user's name or e-mail").is_none());
        assert_eq!(
            listed_values("Data period - 1d,5d,1mo,3mo,6mo,1y,ytd,max").unwrap(),
            ["1d", "5d", "1mo", "3mo", "6mo", "1y", "ytd", "max"]
        );
        assert!(listed_values("Fields to return: name, email, phone").is_none());
        assert!(listed_values("Symbols, e.g.: AAPL,MSFT,GOOGL").is_none());
        assert!(listed_values("Two codes: a,b").is_none());
        assert_eq!(
            listed_values("Type of the UptimeCheck. value : HTTPS, HTTP or PING").unwrap(),
            ["HTTPS", "HTTP", "PING"]
        );
        assert!(listed_values("The check's name: HTTPS, HTTP or PING").is_none());
        let d = "The type of object. Valid values include: companies, contacts, line_items. For \
                 custom objects, use the schema tool.";
        assert_eq!(
            listed_values(d).unwrap(),
            ["companies", "contacts", "line_items"]
        );
        assert!(listed_values("Colors: red, green, or blue").is_none());
        let d = "Predefined period: this_month, last_month, this_year, last_30_days, all.";
        assert_eq!(
            listed_values(d).unwrap(),
            [
                "this_month",
                "last_month",
                "this_year",
                "last_30_days",
                "all"
            ]
        );
        let d = "One of attractions, museums, parks, landmarks, shopping,\nnightlife, \
                 restaurants, cafes, bars. Defaults to ``attractions``.";
        assert_eq!(listed_values(d).map(|v| v.len()), Some(9));
        assert!(listed_values("One of the ids of a project, or a key").is_none());
        assert!(listed_values("One of a or b").is_none());
    }

    #[test]
    fn an_undescribed_parameter_is_documented_by_the_docstring() {
        let tool = "Fetch a page.\n\n    Args:\n        url: The URL.\n        \
                    parse_mode: One of 'text' or 'main'.\n        max_length (int): Cap.";
        let bare = json!({"type": "string"});
        assert_eq!(
            documentation("parse_mode", &bare, tool),
            "One of 'text' or 'main'."
        );
        assert_eq!(documentation("max_length", &bare, tool), "Cap.");
        assert_eq!(
            documentation("url", &json!({"description": "Own."}), tool),
            "Own."
        );
        assert_eq!(documentation("missing", &bare, tool), "");
    }
}
