//! String grounding: free-form string parameters take a span of the request.
//!
//! A model of 135M parameters invents string values when it is free to write any text: a path
//! becomes `"path_to_file"`, an owner `"1234567890"`, a channel id the tool's own name. Yet what a
//! person asks a tool to act on is almost always written in the request: in the MCP dev set, 236
//! of the 253 expected plain-text values and 71 of the 91 paths and URLs occur in the request
//! verbatim. [`ground_strings`] restricts each free-form string parameter to the request's spans
//! ([`query_spans`]): runs of whole words, quoted texts, and the parts of a word joined by `/`
//! or `#` (`acme/webapp` → `acme`, `webapp`), so the model chooses which span goes where instead
//! of writing characters of its own.
//!
//! A string with a `pattern` or a `format` (other than `uri`, `url` or `email`) takes the spans
//! its schema accepts (`PROJ-88` for `^[A-Z][A-Z0-9_]+-\d+$`, a UUID for `format: uuid`), and
//! stays free when none does: dates, times and ids the model must write. A parameter is also
//! left free when it is an `enum` or a `const`, or when its description shows examples (`e.g. 'America/New_York'`, quoted values, or the
//! `examples` keyword) and no span of the request has the shape of one of them: an IANA zone,
//! an `HH:MM` time or an ISO date is then written, not copied ("what time is it in Tokyo?").
//!
//! The grounded schema only admits values the real schema admits (a string is a string); the
//! runtime still validates every call against the tool's advertised schema.

use serde_json::{Map, Value, json};
use toolwright_core::ToolSpec;

/// How many words a span of the request may hold (quoted texts may be longer).
pub const MAX_SPAN_WORDS: usize = 12;
/// How many spans a parameter may be restricted to (a longer request keeps its shorter spans).
pub const MAX_SPANS: usize = 256;

/// Characters stripped from the ends of a word: quotes and brackets at both ends, sentence
/// punctuation at its end.
const OPENERS: &[char] = &['"', '\'', '`', '(', '[', '{', '<', '\u{2018}', '\u{201c}'];
const CLOSERS: &[char] = &[
    '"', '\'', '`', ')', ']', '}', '>', '.', ',', ';', ':', '!', '?', '\u{2019}', '\u{201d}',
];

/// The words of `query` as byte ranges, without the quotes, brackets and sentence punctuation
/// around them (`"(ref e42),"` → `e42`).
fn words(query: &str) -> Vec<std::ops::Range<usize>> {
    word_ranges(query)
        .into_iter()
        .map(|(_, body)| body)
        .collect()
}

/// A word without its possessive ending (`Curie's` → `Curie`, `wikipedia’s` → `wikipedia`): the
/// owner is the value, "'s" is English around it.
fn possessed(word: &str) -> &str {
    ["'s", "\u{2019}s"]
        .iter()
        .find_map(|e| word.strip_suffix(e).filter(|w| !w.is_empty()))
        .unwrap_or(word)
}

/// `word` without its closing punctuation, but a bracket that closes one opened inside the word
/// stays (`input[name=email]`, `f(x)`; `e42),` → `e42`).
fn balanced(word: &str) -> &str {
    let mut end = word.len();
    while let Some(c) = word[..end].chars().next_back() {
        if !CLOSERS.contains(&c) {
            break;
        }
        let open = match c {
            ']' => '[',
            ')' => '(',
            '}' => '{',
            _ => '\0',
        };
        let inner = &word[..end - c.len_utf8()];
        if open != '\0' && inner.matches(open).count() > inner.matches(c).count() {
            break;
        }
        end -= c.len_utf8();
    }
    &word[..end]
}

/// The words of `query`: each as written (up to the whitespace around it) and its body, without
/// the quotes, brackets and sentence punctuation around it, nor a possessive `'s`.
pub(crate) fn word_ranges(query: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in query
        .char_indices()
        .chain(std::iter::once((query.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                let w = &query[s..i];
                let lead = w.len() - w.trim_start_matches(OPENERS).len();
                let body = possessed(balanced(&w[lead..]));
                if !body.is_empty() {
                    out.push((s..i, s + lead..s + lead + body.len()));
                }
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// The parts of a word joined by `/` or `#`, and every run of consecutive parts
/// (`github.com/denoland/deno` → `denoland`, `deno`, `denoland/deno`, ...); a URL is not cut.
pub(crate) fn push_parts(word: &str, out: &mut Vec<String>) {
    if word.contains("://") || !word.contains(['/', '#']) {
        return;
    }
    // The byte ranges of the parts between separators.
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, c) in word
        .char_indices()
        .chain(std::iter::once((word.len(), '/')))
    {
        if c == '/' || c == '#' {
            if i > start {
                pieces.push(start..i);
            }
            start = i + 1;
        }
    }
    for (i, first) in pieces.iter().enumerate() {
        for last in pieces.iter().skip(i) {
            out.extend(word.get(first.start..last.end).map(String::from));
        }
    }
}

/// A quoted text without its first and last characters (its quotes).
fn unquoted(q: &str) -> String {
    let n = q.chars().count();
    q.chars().skip(1).take(n.saturating_sub(2)).collect()
}

/// The request's spans, shortest first: every quoted text without its quotes, and, up to
/// [`MAX_SPANS`] in all (the shortest kept), every run of up to [`MAX_SPAN_WORDS`] consecutive
/// words (as written between its first and last word) and the parts of words joined by `/` or
/// `#`.
///
/// ```
/// use toolwright_local::spans::query_spans;
/// let s = query_spans("comment on issue 17 of acme/webapp saying 'Fixed in v2.3, please retest'");
/// for want in ["acme", "webapp", "acme/webapp", "Fixed in v2.3, please retest", "issue 17"] {
///     assert!(s.iter().any(|x| x == want), "{want}");
/// }
/// assert!(!s.iter().any(|x| x.starts_with('\'')));
/// let s = query_spans("summarise the Early life section of Marie Curie's article");
/// assert!(s.iter().any(|x| x == "Marie Curie"));
/// ```
pub fn query_spans(query: &str) -> Vec<String> {
    let ws = words(query);
    // Quoted texts are values the person wrote out: they are kept whatever their length.
    let mut quoted: Vec<String> = Vec::new();
    for r in toolwright_catalog::values::quoted_spans(query) {
        let inner = unquoted(&query[r]);
        if !inner.trim().is_empty() {
            quoted.push(inner.trim().to_string());
        }
    }
    let mut out: Vec<String> = Vec::new();
    for w in &ws {
        push_parts(&query[w.clone()], &mut out);
    }
    for n in 1..=MAX_SPAN_WORDS.min(ws.len()) {
        for run in ws.windows(n) {
            if let (Some(a), Some(b)) = (run.first(), run.last()) {
                out.push(query[a.start..b.end].to_string());
            }
        }
    }
    let mut seen: std::collections::HashSet<String> = quoted.iter().cloned().collect();
    out.retain(|s| seen.insert(s.clone()));
    out.sort_by_key(String::len);
    out.truncate(MAX_SPANS.saturating_sub(quoted.len()));
    quoted.dedup();
    out.extend(quoted);
    out.sort_by_key(String::len);
    out
}

/// The shape of a value: runs of letters, digits, `_` and `-` become `w`, and a run of parts
/// joined by one separator counts once (`America/New_York` and `Europe/Paris` → `w/w`,
/// `/home/ana/src` → `/w/w`, `09:30` → `w:w`). An ellipsis inside a word is a part the example
/// leaves out (`19:meeting_Njhi..j@thread.v2` is shaped as `19:meeting_NjQ2ZTI3@thread.v2`).
fn shape(v: &str) -> String {
    let chars: Vec<char> = v.chars().collect();
    let elided = |i: usize| {
        let c = chars.get(i).copied();
        let dots = |c: Option<char>| c == Some('.') || c == Some('…');
        if !dots(c) {
            return false;
        }
        let from = chars.get(..i).map_or(0, |b| {
            b.iter().rposition(|c| !dots(Some(*c))).map_or(0, |p| p + 1)
        });
        let to = chars
            .get(i..)
            .and_then(|a| a.iter().position(|c| !dots(Some(*c))))
            .map_or(chars.len(), |p| i + p);
        let long = to - from >= 2 || chars.get(from) == Some(&'…');
        let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric());
        long && from > 0 && word(chars.get(from - 1)) && word(chars.get(to))
    };
    let mut s = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if elided(i) {
            continue;
        }
        let k = if c.is_alphanumeric() || c == '_' || c == '-' {
            'w'
        } else {
            c
        };
        if !(k == 'w' && s.ends_with('w')) {
            s.push(k);
        }
    }
    for sep in ['/', '.', ':', ' '] {
        let three = format!("w{sep}w{sep}w");
        let two = format!("w{sep}w");
        while s.contains(&three) {
            s = s.replace(&three, &two);
        }
    }
    s
}

/// The example values a parameter's schema shows: its `examples`, and in its description the
/// quoted texts and what follows `e.g.` or `for example` up to the next `)`, `,` or `;`.
fn examples(schema: &Value) -> Vec<String> {
    let mut out: Vec<String> = schema
        .get("examples")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let Some(d) = schema.get("description").and_then(Value::as_str) else {
        return out;
    };
    // A quoted call with no arguments names a tool or function to use ("using the
    // `find_organizations()` tool"), not an example value.
    let names_a_call = |q: &str| {
        q.strip_suffix("()").is_some_and(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
        })
    };
    for r in toolwright_catalog::values::quoted_spans(d) {
        let q = unquoted(&d[r]);
        if !names_a_call(&q) {
            out.push(q);
        }
    }
    // ASCII lowering keeps byte offsets, so a cue found in `lower` indexes `d` too.
    let lower = d.to_ascii_lowercase();
    for cue in ["e.g", "for example", "such as"] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(cue) {
            let at = from + i + cue.len();
            let tail = d[at..].trim_start_matches(['.', ',', ':', ' ']);
            let end = tail.find([')', ',', ';']).unwrap_or(tail.len());
            let first = tail[..end].split_whitespace().next().unwrap_or("");
            let v = first.trim_matches(|c: char| OPENERS.contains(&c) || CLOSERS.contains(&c));
            if !v.is_empty() {
                out.push(v.to_string());
            }
            from = at;
        }
    }
    out.retain(|e| !e.trim().is_empty() && !format_placeholder(e));
    out
}

/// The time of day (`HH:MM`, [`crate::clock::times_named`]) written within the three words
/// after the first `date` of `query` ("2026-05-13 at 09:00", "2026-04-21 17:30"), if any.
fn timed(query: &str, date: &str) -> Option<String> {
    let at = query.find(date)? + date.len();
    let after: Vec<&str> = query.get(at..)?.split_whitespace().take(3).collect();
    crate::clock::times_named(&after.join(" "))
        .into_iter()
        .next()
}

/// Whether a span is written as a version: digits in two or more dotted parts, with an
/// optional `v` before and a pre-release after (`3.11`, `2.14.0`, `v1.8.2`, `1.0.0-rc1`), or
/// `v` and a number (`v5`).
fn version_like(span: &str) -> bool {
    let body = span.strip_prefix(['v', 'V']).unwrap_or(span);
    let core = body.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let dotted = parts.len() >= 2 && parts.iter().all(numeric);
    let tagged = body.len() < span.len() && parts.len() == 1 && parts.iter().all(numeric);
    !span.contains(char::is_whitespace) && (dotted || tagged)
}

/// Whether an example is a date or time format written out (`YYYY-MM-DD`, `HH:MM`,
/// `DD.MM.YYYY`, `YYYY-MM-DDTHH:MM:SSZ`), not a value: its letters are a format's (`Y M D H S
/// T Z`, any case), in runs of two or more, and it holds a year's or an hour's run. Taken for a
/// value written in capitals, it had `effective_date` offered `D100` and not `2026-03-01`.
fn format_placeholder(e: &str) -> bool {
    let runs: Vec<&str> = e
        .split(['-', '/', ':', '.', ' ', 'T', 'Z', '+'])
        .filter(|r| !r.is_empty())
        .collect();
    let format_run = |r: &str| {
        let lower = r.to_ascii_lowercase();
        lower.len() >= 2 && ["yyyy", "yy", "mm", "dd", "hh", "ss"].contains(&lower.as_str())
    };
    !runs.is_empty()
        && runs.iter().all(|r| format_run(r))
        && runs
            .iter()
            .any(|r| matches!(r.to_ascii_lowercase().as_str(), "yyyy" | "hh"))
}

/// Whether a schema's `type` is `string`, alone or with `null`.
fn string_typed(o: &Map<String, Value>) -> bool {
    match o.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => {
            ts.iter().any(|t| t == "string") && ts.iter().all(|t| t == "string" || t == "null")
        }
        _ => false,
    }
}

/// An optional value written as `anyOf: [X, {"type": "null"}]` (pydantic's `Optional[X]`, what
/// Python MCP servers advertise) as `X` with the outer description and title: the model leaves
/// the parameter out rather than writing `null`. A union of a text and a number
/// (`Union[str, int]`, "Course code or Canvas ID") is its text: the request's spans hold its
/// numbers too, and the model, free, wrote `"lisst_modules"` for "course 60123".
pub(crate) fn without_null(schema: &Value) -> Option<Value> {
    let o = schema.as_object()?;
    let Some(Value::Array(alts)) = o.get("anyOf") else {
        return None;
    };
    let null = |a: &Value| a.get("type").and_then(Value::as_str) == Some("null");
    let kept: Vec<&Value> = alts.iter().filter(|a| !null(a)).collect();
    let typed = |a: &Value, t: &str| a.get("type").and_then(Value::as_str) == Some(t);
    let inner = match kept.as_slice() {
        [inner] => *inner,
        // A text or a number (`Union[str, int]`: "Course code or Canvas ID") is written as a
        // text: the request's spans hold both its codes and its numbers.
        [a, b] if typed(a, "string") && (typed(b, "integer") || typed(b, "number")) => *a,
        [a, b] if typed(b, "string") && (typed(a, "integer") || typed(a, "number")) => *b,
        _ => return None,
    };
    let mut m = inner.as_object()?.clone();
    for key in ["description", "title"] {
        if let Some(v) = o.get(key) {
            m.entry(key).or_insert_with(|| v.clone());
        }
    }
    Some(Value::Object(m))
}

/// Whether `schema` is a plain string the model writes freely: `type` `string` (alone or with
/// `null`), no `enum`, `const` or `pattern`, and no `format` but `uri`, `url` or `email`.
fn free_string(schema: &Value) -> bool {
    let Some(o) = schema.as_object() else {
        return false;
    };
    let string = string_typed(o);
    let format_ok = o
        .get("format")
        .and_then(Value::as_str)
        .is_none_or(|f| matches!(f, "uri" | "url" | "email"));
    string
        && format_ok
        && !["enum", "const", "pattern"]
            .iter()
            .any(|k| o.contains_key(*k))
}

/// Whether `schema` is a string whose values it constrains by a `pattern` or a `format` (not an
/// `enum` or a `const`): an issue key `^[A-Z]+-\d+$`, a `uuid`, a `date`.
fn constrained_string(schema: &Value) -> bool {
    let Some(o) = schema.as_object() else {
        return false;
    };
    let string = string_typed(o);
    string
        && !o.contains_key("enum")
        && !o.contains_key("const")
        && (o.contains_key("pattern") || o.contains_key("format"))
}

/// The spans that `schema` accepts, its `pattern` and `format` checked, or `None` when none
/// does (the parameter stays free: the value is written, not copied) or the schema does not
/// compile.
fn valid_spans(schema: &Value, spans: &[String]) -> Option<Vec<String>> {
    let v = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .ok()?;
    let ok: Vec<String> = spans
        .iter()
        .filter(|s| v.is_valid(&Value::String((*s).clone())))
        .cloned()
        .collect();
    (!ok.is_empty()).then_some(ok)
}

/// Whether `value`'s length is within `schema`'s `minLength` and `maxLength`.
fn within(schema: &Value, value: &str) -> bool {
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    let max = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    (min..=max).contains(&(value.chars().count() as u64))
}

/// The words a tool uses of its own (those of its name and description, any case), less those
/// its documentation quotes or gives as examples: "Slack" for a tool that posts Slack messages
/// is its service, no value; 'curl' in "One of 'httpx', 'curl' or 'auto'" (read as
/// [`crate::listed`] reads choices) and `AAPL` in "Ticker symbol (e.g., AAPL, MSFT)" are values
/// it offers. Read once per tool.
struct OwnWords {
    used: std::collections::HashSet<String>,
    offered: std::collections::HashSet<String>,
}

impl OwnWords {
    fn of(spec: &ToolSpec) -> Self {
        let used = [spec.name.as_str(), spec.description.as_str()]
            .iter()
            .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let offered = documents(spec)
            .flat_map(|d| {
                let mut v = crate::listed::quoted_words(d);
                v.extend(example_words(d).into_iter().map(String::from));
                v
            })
            .collect();
        OwnWords { used, offered }
    }

    /// Whether `s` is one word the tool uses of its own, not one it offers. A number is never
    /// one: a number in a tool's text is an example of a value ("a Goodreads id, numeric, like
    /// '2767052.The_Hunger_Games'"), and a request may write that very value.
    fn own(&self, s: &str) -> bool {
        !s.contains(char::is_whitespace)
            && !s.bytes().all(|b| b.is_ascii_digit())
            && self.used.contains(&s.to_lowercase())
            && !self.offered.contains(s)
    }
}

/// The tool's description, then its parameters' descriptions.
fn documents(spec: &ToolSpec) -> impl Iterator<Item = &str> {
    let props = spec.parameters.get("properties").and_then(Value::as_object);
    let described = props
        .into_iter()
        .flat_map(|p| p.values())
        .filter_map(|p| p.get("description").and_then(Value::as_str));
    std::iter::once(spec.description.as_str()).chain(described)
}

/// The words of the lists a text gives after `e.g.`, `for example`, `for instance` or `such
/// as`, each up to a closing bracket, a line's or a sentence's end.
fn example_words(d: &str) -> Vec<&str> {
    // ASCII lowering keeps byte offsets.
    let lower = d.to_ascii_lowercase();
    let mut out = Vec::new();
    for cue in ["e.g", "for example", "for instance", "such as"] {
        for (i, _) in lower.match_indices(cue) {
            let tail = d.get(i + cue.len()..).unwrap_or("");
            let end = [")", "\n", ". "]
                .iter()
                .filter_map(|e| tail.find(e))
                .min()
                .unwrap_or(tail.len());
            let listed = tail.get(..end).unwrap_or("");
            out.extend(
                listed
                    .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
                    .map(|w| w.trim_matches(|c: char| OPENERS.contains(&c) || CLOSERS.contains(&c)))
                    .filter(|w| !w.is_empty()),
            );
        }
    }
    out
}

/// The spans that fit `schema`'s length bounds, or `None` when the parameter stays free (no
/// span fits, or its examples have a shape no span has).
fn fitting(schema: &Value, spans: &[String]) -> Option<Vec<String>> {
    let fits: Vec<String> = spans
        .iter()
        .filter(|s| within(schema, s))
        .cloned()
        .collect();
    let ex = examples(schema);
    let shaped = ex.is_empty() || {
        let shapes: Vec<String> = ex.iter().map(|e| shape(e)).collect();
        fits.iter().any(|s| shapes.contains(&shape(s)))
    };
    // Examples all written in capitals (`AAPL`, `MSFT`; `EU-WEST`) ask for a value so written,
    // when the request writes one.
    let fits = if !ex.is_empty() && ex.iter().all(|e| in_capitals(e)) {
        let capitals: Vec<String> = fits.iter().filter(|s| in_capitals(s)).cloned().collect();
        if capitals.is_empty() { fits } else { capitals }
    } else {
        fits
    };
    // Examples that are all phrases ('Click the sign in button') ask for a phrase, not one of
    // its words, when the request has one.
    let words = |s: &str| s.split_whitespace().count();
    let fits = if !ex.is_empty() && ex.iter().all(|e| words(e) >= 2) {
        let phrases: Vec<String> = fits.iter().filter(|s| words(s) >= 2).cloned().collect();
        if phrases.is_empty() { fits } else { phrases }
    } else {
        fits
    };
    (shaped && !fits.is_empty()).then_some(fits)
}

/// Whether `s` is one word written in capitals (`AAPL`, `BRK.B`, `EU-WEST`, `V`), not the
/// words `I` and `A`.
fn in_capitals(s: &str) -> bool {
    !s.contains(char::is_whitespace)
        && s.chars().any(char::is_alphabetic)
        && s.chars().all(|c| !c.is_alphabetic() || c.is_uppercase())
        && !matches!(s, "I" | "A")
}

/// Whether `span` begins or ends with a stop word written in small letters ("in the", "the
/// manifest in", "insiders been"): a phrase cut in the wrong place, not a value (unless quoted).
/// A value that starts with an article is capitalised ("The Hobbit"); `US` is a country, not the
/// pronoun.
fn loose_edged(span: &str) -> bool {
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    let stop = |w: &str| {
        let w = bare(w);
        !w.is_empty()
            && !w.chars().any(char::is_uppercase)
            && toolwright_catalog::text::is_stop_word(&w)
    };
    let mut words = span.split_whitespace();
    let first = words.next();
    let last = words.next_back();
    first.is_some_and(stop) || last.is_some_and(stop)
}

/// Whether `span`, two words or more, begins with a word of the tool's name (`name_words`,
/// lowercase): "resolve react-query" for `resolve-library-id`, "click the button" for
/// `browser_click` are the request's instruction, not a value (unless quoted).
fn opens_with(span: &str, name_words: &[String]) -> bool {
    let mut words = span.split_whitespace();
    let (Some(first), Some(_)) = (words.next(), words.next()) else {
        return false;
    };
    let first = first
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    name_words.contains(&first)
}

/// `schema` with its string type and description kept and the values restricted to `values`.
fn restricted(schema: &Value, values: Vec<String>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("string"));
    m.insert("enum".into(), json!(values));
    if let Some(d) = schema.get("description") {
        m.insert("description".into(), d.clone());
    }
    Value::Object(m)
}

/// A range's two sides ([`crate::cues::RANGE_ENDS`]: `updated_from` and `updated_to`) take the
/// request's two ISO dates in its order, the first the start ("updated between 2025-06-01 and
/// 2025-06-30"), when exactly one such pair of string parameters is left and grounding offered
/// each both dates; a small model otherwise writes the first date into both.
///
/// A request that writes no ISO date but names one calendar period ([`crate::periods`]: "for
/// July 2026", "in Q2 2026") gives the pair its first and last day, when the pair's sides take
/// texts and grounding restricted both (a small model wrote `"2026"` into each).
fn range_dates(query: &str, grounded: &mut Map<String, Value>, names: &[&str]) {
    let dates = crate::cues::iso_dates(query);
    let periods = crate::periods::named(query);
    // Two dates must each be offered to both sides; a period's days are the pair's own.
    let (first, last, offered) = match (dates.as_slice(), periods.as_slice()) {
        ([first, last], _) => (first.clone(), last.clone(), true),
        ([], [period]) => (period.first.clone(), period.last.clone(), false),
        _ => return,
    };
    let takes = |k: &str| {
        grounded.get(k).is_some_and(|p| {
            let texts = p.get("type").and_then(Value::as_str) == Some("string");
            let offers = p.get("enum").and_then(Value::as_array);
            texts
                && offers.is_some_and(|o| {
                    !offered
                        || [&first, &last]
                            .iter()
                            .all(|d| o.iter().any(|v| v.as_str() == Some(d.as_str())))
                })
        })
    };
    let pairs: Vec<(String, String)> = crate::cues::name_pairs(names, crate::cues::RANGE_ENDS)
        .into_iter()
        .filter(|(a, b)| takes(a) && takes(b))
        .collect();
    let [(a, b)] = pairs.as_slice() else {
        return;
    };
    for (k, d) in [(a, &first), (b, &last)] {
        if let Some(p) = grounded.get_mut(k).and_then(Value::as_object_mut) {
            p.insert("enum".into(), json!([d]));
        }
    }
}

/// A move's two ends ([`crate::cues::ends_pair`]) restricted to the same two values take them
/// in the request's order, source first ("9:30 Berlin time to Los Angeles time").
fn order_ends(grounded: &mut Map<String, Value>, names: &[&str]) {
    let Some((source, target)) = crate::cues::ends_pair(names) else {
        return;
    };
    let values = |k: &str| grounded.get(k).and_then(|p| p.get("enum")).cloned();
    let (Some(Value::Array(a)), Some(b)) = (values(&source), values(&target)) else {
        return;
    };
    if let ([first, second], true) = (a.as_slice(), Value::Array(a.clone()) == b) {
        for (k, v) in [(&source, first), (&target, second)] {
            if let Some(p) = grounded.get_mut(k).and_then(Value::as_object_mut) {
                p.insert("enum".into(), json!([v]));
            }
        }
    }
}

/// A number the request writes as the count of a number parameter ("2 adults", "a charge of
/// 0.01": [`crate::narrow::ground_numbers`] attaches it by the name) is not offered to a string
/// parameter too: "the details of listing 12345678 for 2 adults" offers `id` the listing's
/// number, not `2`. Nor is a quantity with a unit that a number parameter takes
/// ([`crate::units::placed`]), alone or inside a longer span: "store the key session:42 with
/// value active for 10 minutes" gives `expireSeconds` 600, and `value` is not offered "active
/// for 10 minutes". The request's quoted texts stay. A parameter left with no offer keeps its
/// own.
fn counted_numbers_out(
    query: &str,
    props: &Map<String, Value>,
    quoted: &[String],
    grounded: &mut Map<String, Value>,
) {
    let words = crate::narrow::words_at(query);
    let numbers = crate::narrow::numbers_at(query);
    let counted: Vec<String> = grounded
        .iter()
        .filter(|(_, p)| crate::narrow::free_number(p) || numeric_enum(p))
        .flat_map(|(k, _)| crate::narrow::attached_numbers(k, &words, &numbers))
        .map(|n| n.to_string())
        .collect();
    // Number grounding may have run: a number parameter restricted to its numbers is read as
    // the free number it was.
    let unrestricted: std::borrow::Cow<'_, Map<String, Value>> = if props.values().any(numeric_enum)
    {
        let mut free = props.clone();
        for p in free.values_mut() {
            if numeric_enum(p)
                && let Some(o) = p.as_object_mut()
            {
                o.remove("enum");
            }
        }
        std::borrow::Cow::Owned(free)
    } else {
        std::borrow::Cow::Borrowed(props)
    };
    let measured: Vec<String> = crate::units::placed(&unrestricted, query)
        .into_iter()
        .map(|(_, _, written)| written.to_string())
        .collect();
    if counted.is_empty() && measured.is_empty() {
        return;
    }
    let holds_measure = |s: &str| {
        !quoted.iter().any(|q| q == s)
            && s.split_whitespace()
                .any(|w| measured.iter().any(|m| m == w))
    };
    for p in grounded.values_mut() {
        let Some(Value::Array(offers)) = p.get("enum") else {
            continue;
        };
        if !offers.iter().all(Value::is_string) {
            continue;
        }
        let kept: Vec<Value> = offers
            .iter()
            .filter(|o| {
                o.as_str()
                    .is_none_or(|s| !counted.iter().any(|c| c == s) && !holds_measure(s))
            })
            .cloned()
            .collect();
        if !kept.is_empty()
            && kept.len() < offers.len()
            && let Some(obj) = p.as_object_mut()
        {
            obj.insert("enum".into(), Value::Array(kept));
        }
    }
}

/// Whether a parameter takes numbers from a list (number grounding's restriction).
fn numeric_enum(p: &Value) -> bool {
    matches!(
        p.get("type").and_then(Value::as_str),
        Some("number" | "integer")
    ) && p.get("enum").is_some()
}

/// A value a cue gave one parameter alone is that parameter's, not another's: "add Jordan
/// Blake (jordan.blake@example.com) as a customer" offers the address to `email` only, and
/// "rename table tblQ3Goals in appX1y2Z3abc" the table's identifier to `tableId` only.
/// - Each parameter whose cue gave exactly one value (after [`order_ends`]) claims it, but an
///   identifier parameter claims an identifier only by its leading letters or by its name
///   before it (not one it took because it names no other parameter). When several claim one value,
///   an identifier goes to the parameter its leading letters name ([`crate::cues::prefix_names`]:
///   `tbl…` to `tableId`), else to one whose name stands before it ("the test_db2 database"),
///   else to the first of them in the schema; the others fall back to the spans they could
///   take without their cue, less those holding a claimed value.
/// - Every other parameter offered a claimed value among others loses it; one offered only
///   claimed values falls back as a losing claimant does.
fn one_value_one_parameter(
    query: &str,
    grounded: &mut Map<String, Value>,
    cued: &[(String, Vec<String>)],
    uncued: &[(String, Vec<String>)],
) {
    // An identifier's leading letters naming the parameter beat the parameter's name before the
    // value ("the test_db2 database"), which beats a cue that merely found an identifier.
    let strength = |k: &str, v: &str| {
        if crate::cues::prefix_names(v, k) {
            2
        } else {
            u8::from(crate::cues::cue_values(k, query).is_some_and(|c| c.iter().any(|c| c == v)))
        }
    };
    let mut claims: Vec<(String, String)> = Vec::new(); // (value, parameter)
    let mut losers: Vec<String> = Vec::new();
    for (k, _) in cued {
        // What the cue left, after a move's ends took their sides.
        let Some(Value::Array(left)) = grounded.get(k).and_then(|p| p.get("enum")) else {
            continue;
        };
        let Some(v) = one_value(left) else {
            continue;
        };
        // An identifier found only because it names no other parameter claims nothing.
        let description = grounded
            .get(k)
            .and_then(|p| p.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if crate::cues::holds_identifier(k, description) && strength(k, v) == 0 {
            continue;
        }
        match claims.iter_mut().find(|(c, _)| c == v) {
            None => claims.push((v.clone(), k.clone())),
            Some((_, holder)) => {
                if strength(k, v) > strength(holder, v) {
                    losers.push(std::mem::replace(holder, k.clone()));
                } else {
                    losers.push(k.clone());
                }
            }
        }
    }
    let claimed_by_other = |k: &str, v: &str| {
        claims
            .iter()
            .any(|(c, holder)| holder != k && (c == v || part_of_path(v, c)))
    };
    // A span holding another parameter's value ("jordan.blake@example.com) as").
    let holds_claimed = |k: &str, s: &str| {
        s.split(|c: char| c.is_whitespace() || "()[],;".contains(c))
            .any(|w| claimed_by_other(k, w))
    };
    // What a parameter could take without its cue, less the spans holding a claimed value.
    let fallback = |k: &str| -> Option<Vec<String>> {
        let (_, rest) = uncued.iter().find(|(u, _)| u == k)?;
        let rest: Vec<String> = rest
            .iter()
            .filter(|s| !holds_claimed(k, s))
            .cloned()
            .collect();
        (!rest.is_empty()).then_some(rest)
    };
    for k in &losers {
        if let (Some(rest), Some(p)) = (fallback(k), grounded.get(k)) {
            let p = restricted(p, rest);
            grounded.insert(k.clone(), p);
        }
    }
    for (k, p) in grounded.iter_mut() {
        let Some(Value::Array(vals)) = p.get("enum") else {
            continue;
        };
        let kept: Vec<Value> = vals
            .iter()
            .filter(|v| v.as_str().is_none_or(|s| !claimed_by_other(k, s)))
            .cloned()
            .collect();
        // Spans holding another's value go too, unless nothing else is left.
        let apart: Vec<Value> = kept
            .iter()
            .filter(|v| v.as_str().is_none_or(|s| !holds_claimed(k, s)))
            .cloned()
            .collect();
        let kept = if apart.is_empty() { kept } else { apart };
        if kept.is_empty() {
            // Every value its cue gave is another's.
            if let Some(rest) = fallback(k) {
                *p = restricted(p, rest);
            }
        } else if kept.len() < vals.len() {
            p["enum"] = Value::Array(kept);
        }
    }
}

/// Whether `part` is one or more whole segments of `whole`, a path or URL another parameter
/// took ("tmp", "smoke3/repo" of `/tmp/smoke3/repo`): not a value of its own.
fn part_of_path(part: &str, whole: &str) -> bool {
    let absolute = whole.starts_with('/') || whole.starts_with("~/") || whole.starts_with("./");
    if !(absolute || whole.contains("://")) || part.contains(char::is_whitespace) {
        return false;
    }
    fn segments(s: &str) -> Vec<&str> {
        s.split('/').filter(|x| !x.is_empty()).collect()
    }
    let (p, w) = (segments(part), segments(whole));
    !p.is_empty() && p.len() <= w.len() && w.windows(p.len()).any(|x| x == p.as_slice())
}

/// The one value a cue left: a single value, or a word joined by `/` or `#` followed by its
/// parts ("project mygroup/backend" gives `mygroup/backend`, `mygroup`, `backend`: the word is
/// the value, the parts are its readings).
fn one_value(left: &[Value]) -> Option<&String> {
    let (Value::String(v), rest) = left.split_first()? else {
        return None;
    };
    if rest.is_empty() {
        return Some(v);
    }
    let mut parts = Vec::new();
    push_parts(v, &mut parts);
    let whole_and_parts = rest.iter().all(|r| {
        r.as_str()
            .is_some_and(|r| r != v && parts.iter().any(|p| p == r))
    });
    whole_and_parts.then_some(v)
}

/// When the request quotes one text that no cue gave a parameter, and exactly one required
/// free-form string parameter got no cue, the text is that parameter's value: "note down this
/// insight: 'Q3 sales in EMEA grew 18%'" sets `insight` to the whole quote, not to `18%`.
fn quoted_to_free(
    spec: &ToolSpec,
    query: &str,
    grounded: &mut Map<String, Value>,
    cued: &[(String, Vec<String>)],
    report: &mut Vec<String>,
) {
    let quotes: Vec<String> = toolwright_catalog::values::quoted_spans(query)
        .into_iter()
        .filter_map(|r| query.get(r))
        .map(|q| unquoted(q).trim().to_string())
        .filter(|q| !q.is_empty())
        .collect();
    let [quote] = quotes.as_slice() else {
        return;
    };
    if cued.iter().any(|(_, v)| v.contains(quote)) {
        return;
    }
    let required: Vec<&str> = spec
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = spec.parameters.get("properties").and_then(Value::as_object) else {
        return;
    };
    let free: Vec<&String> = props
        .iter()
        .filter(|(k, p)| {
            // An optional name, title or body written the pydantic way (`anyOf: [string,
            // null]`) is a text too.
            let unnulled = without_null(p).filter(|_| crate::narrow::takes_text(k));
            let p = unnulled.as_ref().unwrap_or(p);
            // An identifier is one word, never a quoted phrase.
            let identifier = crate::cues::only_identifier(k, crate::narrow::described(p))
                && quote.contains(char::is_whitespace);
            required.contains(&k.as_str())
                && free_string(p)
                && !identifier
                && within(p, quote)
                && !cued.iter().any(|(c, _)| c == *k)
        })
        .map(|(k, _)| k)
        .collect();
    if let [k] = free.as_slice()
        && let Some(p) = props.get(k.as_str())
    {
        let unnulled = without_null(p);
        let p = unnulled.as_ref().unwrap_or(p);
        grounded.insert((*k).clone(), restricted(p, vec![quote.clone()]));
        if !report.contains(k) {
            report.push((*k).clone());
        }
    }
}

/// Whether a string parameter takes an arithmetic expression to evaluate: a word of its name
/// says so (`expression`, `expr`, `formula`, `equation`, `calculation`, `math`), or its
/// documentation speaks of a mathematical or arithmetic expression.
fn takes_expression(name: &str, documented: &str) -> bool {
    let named = crate::cues::name_words(name).iter().any(|w| {
        matches!(
            w.as_str(),
            "expression" | "expr" | "formula" | "equation" | "calculation" | "math"
        )
    });
    let d = documented.to_lowercase();
    named
        || ((d.contains("mathematical") || d.contains("arithmetic") || d.contains("math "))
            && d.contains("expression"))
}

/// The request's words written with a URI scheme that `documented` writes (`ref://` in "A
/// ref://<id> token", `s3://` in "an s3://bucket/key path"), other than the web's own `http`
/// and `https` (a URL parameter has its own cue).
fn scheme_words(documented: &str, query: &str) -> Vec<String> {
    let schemes: Vec<String> = documented
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | '`' | '\'' | '"' | ','))
        .filter_map(|w| {
            let (scheme, _) = w.split_once("://")?;
            let ok = scheme.len() >= 2
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
                && !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https");
            ok.then(|| format!("{}://", scheme.to_ascii_lowercase()))
        })
        .collect();
    if schemes.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<String> = words(query)
        .into_iter()
        .filter_map(|r| query.get(r))
        .filter(|w| {
            schemes
                .iter()
                .any(|s| w.to_ascii_lowercase().starts_with(s.as_str()) && w.len() > s.len())
        })
        .map(String::from)
        .collect();
    out.dedup();
    out
}

/// `spec` (already narrowed: references inlined) with each free-form string parameter, and each
/// array of them, restricted to the spans of `query` (see the module docs); the names of the
/// parameters restricted. Without a span that fits, a parameter stays as it is. With `cues`,
/// a parameter whose value the request points at ([`crate::cues::focus`]: its name word before
/// a value, a path or URL written out; [`crate::cues::owner_name`]: the sides of `owner/name`;
/// [`crate::cues::move_ends`]: "from X into Y"; [`crate::cues::container_item`]: the sides of
/// `database.collection`; [`crate::cues::image_tag`]: of `image:tag`;
/// [`crate::cues::rename_ends`]: "rename X to Y"; a word that the tool's own name or
/// description uses, such as `context7` or `wikipedia`, is never a value: it is the service) is
/// restricted to those values, and the request's one quoted text goes to the one required
/// parameter no cue pointed at (`quoted_to_free`).
pub fn ground_strings(spec: &ToolSpec, query: &str, cues: bool) -> (ToolSpec, Vec<String>) {
    let mut report = Vec::new();
    let Some(props) = spec.parameters.get("properties").and_then(Value::as_object) else {
        return (spec.clone(), report);
    };
    let g = Grounding::new(spec, props, query, cues);
    if g.spans.is_empty() {
        return (spec.clone(), report);
    }
    let placed = if cues {
        crate::cues::placed_files(query)
    } else {
        Vec::new()
    };
    // A file placed in a directory ("todo.md in /home/ana") is one path for a parameter that
    // takes a file.
    let values = |k: &str, schema: &Value| -> Option<Vec<String>> {
        let v = unschemed_names(k, g.pointed(k, schema)?);
        let v = comma_joined(k, schema, &spec.description, query, v);
        if placed.is_empty() || !crate::cues::takes_file(k, &g.names) {
            return Some(v);
        }
        let composed: Vec<String> = crate::cues::compose_placed(&v, &placed)
            .into_iter()
            .filter(|s| within(schema, s))
            .collect();
        Some(if composed.is_empty() { v } else { composed })
    };
    let mut grounded = Map::new();
    for (k, p) in props {
        let unnulled = without_null(p);
        let p = unnulled.as_ref().unwrap_or(p);
        let items = (p.get("type").and_then(Value::as_str) == Some("array"))
            .then(|| p.get("items"))
            .flatten();
        let groundable = |s: &Value| free_string(s) || constrained_string(s);
        let restricted_to = match items {
            Some(items) if groundable(items) => {
                values(k, &described_items(k, p, items)).map(|fits| {
                    let fits = whole_listed(query, fits, |s| within(items, s));
                    let mut a = p.as_object().cloned().unwrap_or_default();
                    a.insert("items".into(), restricted(items, fits));
                    // A list a cue points a value at takes at least one: the model had
                    // written `"account_ids": []` for "my relationship with account 55019".
                    if g.cued.borrow().iter().any(|(c, _)| c == k) {
                        a.entry("minItems").or_insert(json!(1));
                    }
                    Value::Object(a)
                })
            }
            _ if groundable(p) => values(k, p).map(|fits| restricted(p, fits)),
            _ => None,
        };
        if restricted_to.is_some() {
            report.push(k.clone());
        }
        grounded.insert(k.clone(), restricted_to.unwrap_or_else(|| p.clone()));
    }
    if cues {
        order_ends(&mut grounded, &g.names);
        range_dates(query, &mut grounded, &g.names);
        one_value_one_parameter(query, &mut grounded, &g.cued.borrow(), &g.uncued.borrow());
        counted_numbers_out(query, props, &g.quoted, &mut grounded);
        quoted_to_free(spec, query, &mut grounded, &g.cued.borrow(), &mut report);
    }
    let mut out = spec.clone();
    if let Some(root) = out.parameters.as_object_mut() {
        root.insert("properties".into(), Value::Object(grounded));
    }
    (out, report)
}

/// A text documented as comma-separated ("contact_ids: Comma-separated contact IDs") takes a
/// list the request writes ([`crate::lists::listed`]) as one text, its items joined by commas,
/// in place of the items the list holds: "attach the note to 5f3a… and 64b0…" gives
/// `contact_ids` "5f3a…,64b0…", not one of them.
fn comma_joined(
    k: &str,
    schema: &Value,
    tool_description: &str,
    query: &str,
    v: Vec<String>,
) -> Vec<String> {
    let documented = crate::listed::documentation(k, schema, tool_description).to_lowercase();
    let separated = [
        "comma-separated",
        "comma separated",
        "separated by comma",
        "comma-delimited",
    ]
    .iter()
    .any(|m| documented.contains(m));
    if !separated || !free_string(schema) {
        return v;
    }
    let mut out: Vec<String> = Vec::new();
    let mut joined_items: Vec<String> = Vec::new();
    for list in crate::lists::listed(query) {
        if list.iter().any(|w| v.contains(w)) {
            out.push(list.join(","));
            joined_items.extend(list);
        }
    }
    out.extend(v.into_iter().filter(|s| !joined_items.contains(s)));
    out.dedup();
    out
}

/// A thing's name written as its address (`gs://static-site-assets`, `s3://logs`) is the name
/// after the scheme, for a parameter named as a name (`bucket_name`); an address with a path
/// after the name stays whole.
fn unschemed_names(k: &str, values: Vec<String>) -> Vec<String> {
    let named = crate::cues::name_words(k)
        .last()
        .is_some_and(|w| w == "name");
    if !named {
        return values;
    }
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let bare = v
            .split_once("://")
            .map(|(_, rest)| rest.trim_end_matches('/'))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map_or_else(|| v.clone(), String::from);
        if !out.contains(&bare) {
            out.push(bare);
        }
    }
    out
}

/// The values offered to an array's items, with every item of a list the request writes
/// ([`crate::lists::listed`]) that holds one of them: a cue points at the first id of "authors
/// 1741101, 1751762 and 145642373", and the array takes the others too.
fn whole_listed(query: &str, mut fits: Vec<String>, ok: impl Fn(&str) -> bool) -> Vec<String> {
    for list in crate::lists::listed(query) {
        if list.iter().any(|w| fits.contains(w)) {
            for w in list {
                if !fits.contains(&w) && ok(&w) {
                    fits.push(w);
                }
            }
        }
    }
    fits
}

/// An array's item schema, with the array's description when that says how the items are
/// written and the items have none of their own: a list of "recipient email addresses" holds
/// e-mail addresses. (Only the written form: other rules read an array's description as its
/// items' would change what lists of ids and patterns are offered.)
fn described_items(name: &str, array: &Value, items: &Value) -> Value {
    let mut items = items.clone();
    let says = array
        .get("description")
        .and_then(Value::as_str)
        .filter(|d| {
            crate::cues::written_as_described(name, d) == Some(crate::cues::Written::Email)
        });
    if let (Some(o), Some(d)) = (items.as_object_mut(), says)
        && !o.contains_key("description")
    {
        o.insert("description".into(), Value::String(d.to_string()));
    }
    items
}

/// What [`ground_strings`] reads once per request and tool, and what its cues found.
struct Grounding<'a> {
    spec: &'a ToolSpec,
    props: &'a Map<String, Value>,
    query: &'a str,
    cues: bool,
    spans: Vec<String>,
    names: Vec<&'a str>,
    own_words: OwnWords,
    /// The request's quoted texts, without their quotes.
    quoted: Vec<String>,
    /// The words of the tool's name.
    name_words: Vec<String>,
    /// The values the pair cues (`owner/name`, a move's ends, `database.collection`) give.
    pairs: Vec<(String, Vec<String>)>,
    /// The parameters a cue pointed at, with the values it gave.
    cued: std::cell::RefCell<Vec<(String, Vec<String>)>>,
    /// The spans each cued parameter could take without its cue.
    uncued: std::cell::RefCell<Vec<(String, Vec<String>)>>,
}

impl<'a> Grounding<'a> {
    fn new(spec: &'a ToolSpec, props: &'a Map<String, Value>, query: &'a str, cues: bool) -> Self {
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        let pairs = if cues {
            let mut p = crate::cues::owner_name(&names, query);
            p.extend(crate::cues::move_ends(&names, query));
            p.extend(crate::cues::container_item(&names, query));
            p.extend(crate::cues::image_tag(&names, query));
            p.extend(crate::cues::rename_ends(&names, query));
            p
        } else {
            Vec::new()
        };
        Grounding {
            spec,
            props,
            query,
            cues,
            spans: query_spans(query),
            names,
            own_words: OwnWords::of(spec),
            quoted: toolwright_catalog::values::quoted_spans(query)
                .into_iter()
                .filter_map(|r| query.get(r).map(|q| unquoted(q).trim().to_string()))
                .collect(),
            name_words: toolwright_catalog::text::words(&spec.name),
            pairs,
            cued: Default::default(),
            uncued: Default::default(),
        }
    }

    /// The values parameter `k` (of schema `schema`, its items' for an array) may take, or
    /// `None` when it stays as it is.
    fn pointed(&self, k: &str, schema: &Value) -> Option<Vec<String>> {
        if let Some(dates) = self
            .dates_for(k, schema)
            .or_else(|| self.versions_for(k, schema))
        {
            self.cued.borrow_mut().push((k.to_string(), dates.clone()));
            return Some(dates);
        }
        if let Some((_, v)) = self.pairs.iter().find(|(p, _)| p == k) {
            let v: Vec<String> = v.iter().filter(|s| within(schema, s)).cloned().collect();
            if !v.is_empty() && free_string(schema) {
                self.cued.borrow_mut().push((k.to_string(), v.clone()));
                return Some(v);
            }
        }
        let documented = crate::listed::documentation(k, schema, &self.spec.description);
        if self.cues
            && let Some(v) = self.by_kind(k, schema, documented)
        {
            return Some(v);
        }
        // A colour the request does not write or name is the model's to choose: no span of it is
        // one ("create a label called regression" offered `color` "called"; "colour berry_red"
        // still offers `berry_red`).
        if self.cues
            && free_string(schema)
            && crate::kinds::colour_param(k)
            && !crate::kinds::colour_written(self.query)
            && !toolwright_catalog::text::words(self.query)
                .iter()
                .any(|w| matches!(w.as_str(), "color" | "colour" | "colors" | "colours"))
        {
            return None;
        }
        let fits = if constrained_string(schema) {
            valid_spans(schema, &self.spans)?
        } else {
            // Examples the tool's argument list gives count as the parameter's own.
            let mut own = schema.clone();
            if let (Some(o), false) = (own.as_object_mut(), documented.is_empty()) {
                o.entry("description")
                    .or_insert_with(|| Value::String(documented.to_string()));
            }
            fitting(&own, &self.spans)?
        };
        if !self.cues {
            return Some(fits);
        }
        // One word the tool's own text uses names the service or its terms, not a value, unless
        // the text quotes it as one ("One of 'httpx', 'curl' or 'auto'").
        let own = |s: &str| self.own_words.own(s);
        let param = crate::cues::Param {
            name: k,
            description: schema
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
            siblings: &self.names,
            tool: &self.spec.name,
            tool_description: &self.spec.description,
        };
        let fit = |s: &str| within(schema, s) && !own(s);
        // What the tool's things are about ("recalls of valsartan" for `drug_name`), for a
        // parameter the schema leaves optional (it has a default): a required one has
        // readings of its own, which this one would override.
        let optional = self
            .props
            .get(k)
            .is_some_and(|p| p.get("default").is_some());
        let own_text = |w: &str| crate::cues::tool_uses(&self.spec.name, &self.spec.description, w);
        if optional
            && let Some(v) =
                crate::cues::subject_of(k, &self.spec.name, &self.names, self.query, own_text)
                    .map(|v| v.into_iter().filter(|v| fit(v)).collect::<Vec<_>>())
                    .filter(|v| !v.is_empty())
        {
            self.cued.borrow_mut().push((k.to_string(), v.clone()));
            return Some(v);
        }
        match crate::cues::focus(param, self.query, &fits, fit) {
            Some(v) => {
                self.cued.borrow_mut().push((k.to_string(), v.clone()));
                let rest = self.uncued_spans(k, param.description, &fits);
                self.uncued.borrow_mut().push((k.to_string(), rest));
                Some(v)
            }
            None => crate::cues::named_properly(param, self.query, fit).or_else(|| {
                let rest = self.uncued_spans(k, param.description, &fits);
                Some(if rest.is_empty() { fits.clone() } else { rest })
            }),
        }
    }

    /// The values of parameter `k` that the request names by their kind: a time zone, a clock
    /// time, a colour, language, country or currency, a git reference, an arithmetic
    /// expression, a word written with the documented scheme, a search's subject.
    /// A parameter that takes a date ([`crate::cues::written_as_described`]: `effective_date`,
    /// a `start` described as a date, a `YYYY-MM-DD` format) takes the ISO dates the request
    /// writes, and no other span: a cue word had `search_date` offered "unit 05363233" beside
    /// "2026-06-01".
    fn dates_for(&self, k: &str, schema: &Value) -> Option<Vec<String>> {
        if !self.cues || !free_string(schema) {
            return None;
        }
        // A parameter the tool's docstring documents ("month: Month to retrieve (YYYY-MM-DD,
        // first of month)") is read with that documentation.
        let documented = crate::listed::documentation(k, schema, &self.spec.description);
        let mut own = schema.clone();
        if let (Some(o), false) = (own.as_object_mut(), documented.is_empty()) {
            o.entry("description")
                .or_insert_with(|| Value::String(documented.to_string()));
        }
        let schema = &own;
        let text = |f: &str| schema.get(f).and_then(Value::as_str).unwrap_or("");
        let described = format!("{} {}", text("description"), text("format"));
        if !crate::narrow::takes_date(k, schema) {
            return None;
        }
        // A date-only parameter (`YYYY-MM-DD` and no hour, `format: date`) takes the dates; any
        // other takes a date with the time of day written right after it as one moment
        // ("2026-05-13 at 09:00" → `2026-05-13T09:00`).
        let lower = described.to_lowercase();
        let date_only =
            text("format") == "date" || (lower.contains("yyyy-mm-dd") && !lower.contains("hh"));
        let dates: Vec<String> = crate::cues::iso_dates(self.query)
            .into_iter()
            .map(|d| {
                if date_only || d.len() > 10 {
                    return d;
                }
                match timed(self.query, &d) {
                    Some(t) => format!("{d}T{t}"),
                    None => d,
                }
            })
            .filter(|d| within(schema, d))
            .fold(Vec::new(), |mut out, d| {
                if !out.contains(&d) {
                    out.push(d);
                }
                out
            });
        if !dates.is_empty() {
            return Some(dates);
        }
        // A month written as a date is its first day ("break down March 2026" → `2026-03-01`).
        let month = crate::cues::name_words(k).iter().any(|w| w == "month");
        let firsts: Vec<String> = crate::periods::named(self.query)
            .into_iter()
            .filter(|p| month && p.first.get(..7) == p.last.get(..7))
            .map(|p| p.first)
            .filter(|d| within(schema, d))
            .collect();
        (!firsts.is_empty()).then_some(firsts)
    }

    /// A parameter named for a version (`version`, `python_version`) takes the versions the
    /// request writes (`2.14.0`, `3.11`, `v5`), and no other span.
    fn versions_for(&self, k: &str, schema: &Value) -> Option<Vec<String>> {
        let named = crate::cues::name_words(k)
            .last()
            .is_some_and(|w| w == "version");
        if !self.cues || !free_string(schema) || !named {
            return None;
        }
        let versions: Vec<String> = self
            .spans
            .iter()
            .filter(|s| version_like(s) && within(schema, s))
            .cloned()
            .collect();
        (!versions.is_empty()).then_some(versions)
    }

    fn by_kind(&self, k: &str, schema: &Value, documented: &str) -> Option<Vec<String>> {
        let (query, free) = (self.query, free_string(schema));
        let some = |v: Vec<String>| (!v.is_empty()).then_some(v);
        let within_schema = |v: Vec<String>| -> Vec<String> {
            v.into_iter().filter(|s| within(schema, s)).collect()
        };
        if examples(schema).iter().any(|e| crate::zones::is_zone(e))
            && let Some(zones) = some(crate::zones::zones_named(query))
        {
            return Some(zones);
        }
        if crate::clock::takes_clock_time(documented, &examples(schema))
            && let Some(times) = some(crate::clock::times_named(query))
        {
            return Some(times);
        }
        if !free {
            return None;
        }
        // A colour, language, country or currency parameter takes the values of its kind the
        // request names (documented on the parameter itself when it is an array of them).
        let own_doc = self.props.get(k).map_or("", |p| {
            crate::listed::documentation(k, p, &self.spec.description)
        });
        if let Some(kind) = crate::kinds::kind_of(k, own_doc)
            && let Some(v) = some(within_schema(crate::kinds::named(kind, query)))
        {
            return Some(v);
        }
        // A git reference parameter takes the references the request names for it.
        if let Some(v) = some(within_schema(crate::refs::refs_for(
            k,
            own_doc,
            &self.names,
            query,
        ))) {
            self.cued.borrow_mut().push((k.to_string(), v.clone()));
            return Some(v);
        }
        // An expression to evaluate takes the request's arithmetic, whole.
        if takes_expression(k, documented)
            && let Some(e) = toolwright_catalog::values::arithmetic_expression(query)
            && within(schema, &e)
        {
            return Some(vec![e]);
        }
        // A value the documentation writes with a scheme ("A ref://<id> token") is the request's
        // word written with it.
        if let Some(v) = some(scheme_words(documented, query)) {
            return Some(v);
        }
        // A SQL parameter takes the statements the request writes, each whole.
        // Both are cues: a quoted text inside the code is part of it, not a value of its own.
        if crate::code::takes_sql(k, documented)
            && let Some(v) = some(within_schema(crate::code::sql_statements(query)))
        {
            self.cued.borrow_mut().push((k.to_string(), v.clone()));
            return Some(v);
        }
        // A JSON text takes the JSON the request writes, whole (an ACL policy).
        if crate::code::takes_json(k, documented)
            && let Some(v) = some(within_schema(crate::code::json_written(query)))
        {
            self.cued.borrow_mut().push((k.to_string(), v.clone()));
            return Some(v);
        }
        // Code to run takes the code the request writes, whole ("console.log([1, 2].length)").
        if crate::code::takes_code(k, documented)
            && let Some(v) = some(within_schema(crate::code::written(query)))
        {
            self.cued.borrow_mut().push((k.to_string(), v.clone()));
            return Some(v);
        }
        // A glob pattern takes the pattern the request describes ("starting with user:").
        if crate::globs::takes_glob(k, documented)
            && let Some(v) = some(within_schema(crate::globs::described(query)))
        {
            return Some(v);
        }
        // A text that matches part of a name (`group_name_contains`) takes the request's quoted
        // texts, whole ("host groups with 'kubernetes' in the name").
        if crate::narrow::matches_part(k)
            && let Some(v) = some(within_schema(self.quoted.clone()))
        {
            self.cued.borrow_mut().push((k.to_string(), v.clone()));
            return Some(v);
        }
        // A search's query or a prompt takes the request's subject, not one of its words.
        let kind = crate::topic::takes_topic(k, documented)?;
        some(within_schema(crate::topic::topics(query, kind, |s| {
            self.own_words.own(s)
        })))
    }

    /// The spans parameter `k` (described as `description`) is offered when no cue points: not
    /// the tool's own words, not a phrase cut at a small stop word ([`loose_edged`]), not the
    /// request's instruction ([`opens_with`]), no value another parameter is restricted to
    /// ("deployment" for a `resourceType` narrowed to it), and one word for an identifier;
    /// quoted texts always stay. When nothing else is left, only the tool's own words are.
    fn uncued_spans(&self, k: &str, description: &str, fits: &[String]) -> Vec<String> {
        let identifier = crate::cues::holds_identifier(k, description);
        let settled: Vec<String> = self
            .props
            .iter()
            .filter(|(other, _)| other.as_str() != k)
            .filter_map(
                |(_, p)| match p.get("enum").and_then(Value::as_array)?.as_slice() {
                    [Value::String(v)] => Some(v.to_lowercase()),
                    _ => None,
                },
            )
            .collect();
        let unowned = fits.iter().filter(|s| !self.own_words.own(s));
        let tight: Vec<String> = unowned
            .clone()
            .filter(|s| {
                self.quoted.contains(s)
                    || !(loose_edged(s)
                        || opens_with(s, &self.name_words)
                        || settled.contains(&s.to_lowercase())
                        || (identifier && s.contains(char::is_whitespace)))
            })
            .cloned()
            .collect();
        if tight.is_empty() {
            unowned.cloned().collect()
        } else {
            tight
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(props: Value) -> ToolSpec {
        ToolSpec::new(
            "t",
            "A tool.",
            json!({"type": "object", "properties": props}),
        )
    }

    fn allowed(s: &ToolSpec, k: &str) -> Vec<String> {
        serde_json::from_value(s.parameters["properties"][k]["enum"].clone()).unwrap_or_default()
    }

    #[test]
    fn a_date_parameter_takes_the_request_dates_not_its_format_written_in_capitals() {
        // MAYO HR's `list_active_employees`: "`YYYY-MM-DD`" was read as an example in capitals,
        // and `effective_date` was offered `HR` and `D100`, not the date.
        let employees = ToolSpec::new(
            "list_active_employees",
            "List employees active on a date.",
            json!({"type": "object", "properties": {
                "effective_date": {"type": "string",
                    "description": "Effective date in `YYYY-MM-DD` format"},
                "insurance_no": {"type": "string"}},
                   "required": ["effective_date", "insurance_no"]}),
        );
        let q = "who was employed on 2026-03-01 in unit 05363233? (MAYO HR)";
        let (g, _) = ground_strings(&employees, q, true);
        assert_eq!(allowed(&g, "effective_date"), ["2026-03-01"]);
        assert!(format_placeholder("YYYY-MM-DD") && format_placeholder("HH:MM"));
        assert!(format_placeholder("yyyy-mm-ddThh:mm:ssZ") && format_placeholder("DD.MM.YYYY"));
        assert!(
            !format_placeholder("AAPL")
                && !format_placeholder("MM")
                && !format_placeholder("EU-WEST")
        );
    }

    #[test]
    fn a_list_a_cue_points_at_takes_at_least_one_item() {
        let s = spec(json!({"account_ids": {"type": "array", "items": {"type": "string"}}}));
        let (g, _) = ground_strings(&s, "check my relationship with account 55019", true);
        assert_eq!(
            g.parameters["properties"]["account_ids"]["minItems"],
            json!(1)
        );
        assert_eq!(
            g.parameters["properties"]["account_ids"]["items"]["enum"],
            json!(["55019"])
        );
    }

    #[test]
    fn a_comma_separated_text_takes_the_whole_list_and_ids_are_words() {
        // Set L's Nimble and Ashby (read, 2026-12-07).
        let note = spec(json!({
            "contact_ids": {"type": "string", "description": "Comma-separated contact IDs (1-10)."},
            "note": {"type": "string"}}));
        let q = "attach the note 'Met at SaaStr' to 5f3a1b2c9d8e and 64b0c1d2e3f4";
        let (g, _) = ground_strings(&note, q, true);
        assert_eq!(allowed(&g, "contact_ids"), ["5f3a1b2c9d8e,64b0c1d2e3f4"]);
        let bulk = spec(json!({
            "application_ids": {"type": "array", "items": {"type": "string"},
                "description": "Array of application IDs (UUIDs) to archive."},
            "archive_reason_id": {"type": "string"}}));
        let q = "bulk-reject these applications: e5f6a7b8-c9d0, 0a1b2c3d-4e5f, 9f8e7d6c-5b4a \
                 (reason 1c2d3e4f-5a6b)";
        let (g, _) = ground_strings(&bulk, q, true);
        assert_eq!(
            g.parameters["properties"]["application_ids"]["items"]["enum"],
            json!(["e5f6a7b8-c9d0", "0a1b2c3d-4e5f", "9f8e7d6c-5b4a"])
        );
    }

    #[test]
    fn a_name_written_as_an_address_is_the_name() {
        let s = spec(json!({"bucket_name": {"type": "string"}}));
        let (g, _) = ground_strings(
            &s,
            "print the iam bindings on gs://static-site-assets",
            true,
        );
        assert!(allowed(&g, "bucket_name").contains(&"static-site-assets".to_string()));
        assert!(!allowed(&g, "bucket_name").iter().any(|v| v.contains("://")));
        assert_eq!(unschemed_names("url", vec!["gs://a".into()]), ["gs://a"]);
        assert_eq!(
            unschemed_names("object_name", vec!["gs://a/b.txt".into()]),
            ["gs://a/b.txt"]
        );
    }

    #[test]
    fn a_month_written_as_a_date_is_its_first_day() {
        // YNAB's `get_month`, documented in its docstring only.
        let month = ToolSpec::new(
            "get_month",
            "Get a budget month.\n\nArgs:\n    month: Month to retrieve (YYYY-MM-DD, first of \
             month, e.g. \"2026-03-01\").",
            json!({"type": "object", "properties": {"month": {"type": "string"}},
                   "required": ["month"]}),
        );
        let (g, _) = ground_strings(&month, "break down March 2026 by category", true);
        assert_eq!(allowed(&g, "month"), ["2026-03-01"]);
        // A date that is no month's first day is left to the request's ISO dates.
        let (g, _) = ground_strings(&month, "the month of 2026-03-15", true);
        assert_eq!(allowed(&g, "month"), ["2026-03-15"]);
    }

    #[test]
    fn a_version_parameter_takes_the_versions_written() {
        let deps = ToolSpec::new(
            "resolve_dependencies",
            "Resolve a package's dependencies.",
            json!({"type": "object", "properties": {
                "package_name": {"type": "string"},
                "python_version": {"type": "string"}},
                   "required": ["package_name", "python_version"]}),
        );
        let (g, _) = ground_strings(
            &deps,
            "resolve everything boto3 pulls in for python 3.11",
            true,
        );
        assert_eq!(allowed(&g, "python_version"), ["3.11"]);
        assert!(version_like("v1.8.2") && version_like("1.0.0-rc1") && version_like("v5"));
        assert!(!version_like("5") && !version_like("2026-06-01") && !version_like("a.b"));
    }

    #[test]
    fn a_moment_parameter_takes_a_date_with_its_time() {
        let event = ToolSpec::new(
            "create_event",
            "Create a calendar event.",
            json!({"type": "object", "properties": {
                "summary": {"type": "string"}, "start": {"type": "string"},
                "day": {"type": "string", "description": "Day, YYYY-MM-DD"}},
                   "required": ["summary", "start", "day"]}),
        );
        let (g, _) = ground_strings(
            &event,
            "add 'Dentist' to my calendar on 2026-05-13 at 09:00",
            true,
        );
        assert_eq!(allowed(&g, "start"), ["2026-05-13T09:00"]);
        assert_eq!(allowed(&g, "day"), ["2026-05-13"]);
        let (g, _) = ground_strings(&event, "add 'Dentist' on 2026-05-13, 3 people", true);
        assert_eq!(allowed(&g, "start"), ["2026-05-13"]);
    }

    #[test]
    fn a_text_or_number_union_takes_the_request_spans() {
        let modules = ToolSpec::new(
            "list_modules",
            "List a course's modules.",
            json!({"type": "object", "properties": {
                "course_identifier": {"anyOf": [{"type": "string"}, {"type": "integer"}],
                    "description": "Course code or Canvas ID"}},
                   "required": ["course_identifier"]}),
        );
        let (g, r) = ground_strings(&modules, "what modules does course 60123 have?", true);
        assert_eq!(r, ["course_identifier"]);
        assert!(
            allowed(&g, "course_identifier").contains(&"60123".to_string()),
            "{g:?}"
        );
    }

    #[test]
    fn a_period_gives_a_range_its_first_and_last_day() {
        let leave = ToolSpec::new(
            "get_leave_history",
            "Leave requests in a date range.",
            json!({"type": "object", "properties": {
                "start_date": {"type": "string", "description": "Range start in `YYYY-MM-DD` format"},
                "end_date": {"type": "string", "description": "Range end in `YYYY-MM-DD` format"}},
                   "required": ["start_date", "end_date"]}),
        );
        let (g, _) = ground_strings(
            &leave,
            "leave requests (approved and pending) for July 2026",
            true,
        );
        assert_eq!(allowed(&g, "start_date"), ["2026-07-01"]);
        assert_eq!(allowed(&g, "end_date"), ["2026-07-31"]);
        let (g, _) = ground_strings(&leave, "leave taken in Q1 2026", true);
        assert_eq!(allowed(&g, "end_date"), ["2026-03-31"]);
        // Two periods say no one range.
        let (g, _) = ground_strings(&leave, "compare May 2026 and June 2026", true);
        assert_ne!(allowed(&g, "start_date"), ["2026-05-01"]);
    }

    #[test]
    fn an_array_pointed_at_the_first_item_of_a_list_is_offered_all_of_it() {
        let authors = ToolSpec::new(
            "get_authors_batch",
            "Get several authors at once.",
            json!({"type": "object", "properties": {"author_ids": {"type": "array",
                "items": {"type": "string"}, "description": "author IDs"}},
                "required": ["author_ids"]}),
        );
        let (g, _) = ground_strings(
            &authors,
            "details on authors 1741101, 1751762 and 145642373 together",
            true,
        );
        let items: Vec<String> = serde_json::from_value(
            g.parameters["properties"]["author_ids"]["items"]["enum"].clone(),
        )
        .unwrap();
        for id in ["1741101", "1751762", "145642373"] {
            assert!(items.iter().any(|i| i == id), "{id}: {items:?}");
        }
    }

    #[test]
    fn one_quote_is_the_value_of_the_one_uncued_required_text() {
        let insight = ToolSpec::new(
            "append_insight",
            "Add a business insight to the memo.",
            json!({"type": "object", "properties": {"insight": {"type": "string"}},
                   "required": ["insight"]}),
        );
        let q =
            "note down this insight in the memo: 'Q3 sales in EMEA grew 18% driven by renewals'";
        let (g, _) = ground_strings(&insight, q, true);
        assert_eq!(
            allowed(&g, "insight"),
            ["Q3 sales in EMEA grew 18% driven by renewals"]
        );
        // Without cues, or with two quotes, or two uncued texts, the spans stay.
        let (g, _) = ground_strings(&insight, q, false);
        assert!(allowed(&g, "insight").len() > 1);
        let (g, _) = ground_strings(&insight, "note 'a b' and 'c d'", true);
        assert!(allowed(&g, "insight").len() > 2);
        let two = ToolSpec::new(
            "t",
            "A tool.",
            json!({"type": "object", "properties": {
                "title": {"type": "string"}, "body": {"type": "string"}},
                   "required": ["title", "body"]}),
        );
        let (g, _) = ground_strings(&two, "file a bug: 'CSV export drops unicode'", true);
        assert!(allowed(&g, "title").len() > 1);
    }

    #[test]
    fn a_tool_named_in_the_description_is_no_example_and_a_slug_is_named_by_its_thing() {
        // Sentry's `organizationSlug`: the description points at another tool in backticks,
        // which read as an example value whose shape no span has, so the parameter was left
        // free and the model wrote `acme_organization`.
        let find = ToolSpec::new(
            "find_projects",
            "Find projects in Sentry.",
            json!({"type": "object", "properties": {"organizationSlug": {"type": "string",
                "description": "The organization's slug. You can find a existing list of \
                    organizations you have access to using the `find_organizations()` tool."}},
                   "required": ["organizationSlug"]}),
        );
        let (g, _) = ground_strings(&find, "list the projects in the acme organization", true);
        assert_eq!(allowed(&g, "organizationSlug"), ["acme"]);
    }

    #[test]
    fn examples_that_are_phrases_ask_for_a_phrase() {
        // Browserbase's `act`: offered "click" alone, the model took it.
        let act = ToolSpec::new(
            "stagehand_act",
            "Perform a single action on the page.",
            json!({"type": "object", "properties": {"action": {"type": "string", "description":
                "The action to perform, i.e. 'Click the sign in button' or 'Type hello'."}},
                   "required": ["action"]}),
        );
        let (g, _) = ground_strings(&act, "click the Sign in button on the page", true);
        let offered = allowed(&g, "action");
        assert!(
            offered.contains(&"click the Sign in button".to_string()),
            "{offered:?}"
        );
        assert!(offered.iter().all(|s| s.contains(' ')), "{offered:?}");
    }

    #[test]
    fn a_colour_the_request_does_not_write_is_left_to_the_model() {
        let label = ToolSpec::new(
            "create_label",
            "Create a label in a project.",
            json!({"type": "object", "properties": {
                "name": {"type": "string"}, "color": {"type": "string"}},
                   "required": ["name", "color"]}),
        );
        let (g, _) = ground_strings(&label, "create a label called regression", true);
        assert!(
            g.parameters["properties"]["color"].get("enum").is_none(),
            "{}",
            g.parameters
        );
        assert_eq!(allowed(&g, "name"), ["regression"]);
        // Named, written as a code, or cued by the parameter's name: offered.
        let (g, _) = ground_strings(&label, "a label called regression, teal", true);
        assert_eq!(allowed(&g, "color"), ["teal"]);
        let (g, _) = ground_strings(&label, "a label called regression, #ff8800", true);
        assert_eq!(allowed(&g, "color"), ["#ff8800"]);
        let (g, _) = ground_strings(&label, "a label called regression, colour berry_red", true);
        assert!(allowed(&g, "color").contains(&"berry_red".to_string()));
    }

    #[test]
    fn a_statement_written_out_is_offered_whole_its_quotes_included() {
        let run = ToolSpec::new(
            "execute_query",
            "Execute a SQL query on the database.",
            json!({"type": "object", "properties": {
                "sql": {"type": "string", "description": "The SQL to run"}},
                   "required": ["sql"]}),
        );
        let q = "run this on duckdb: SELECT count(*) FROM orders WHERE status = 'shipped'";
        let (g, _) = ground_strings(&run, q, true);
        assert_eq!(
            allowed(&g, "sql"),
            ["SELECT count(*) FROM orders WHERE status = 'shipped'"]
        );
        // Code to run, likewise: the quote is part of the code, not the value.
        let exec = ToolSpec::new(
            "run_code",
            "Run a snippet.",
            json!({"type": "object", "properties": {"code": {"type": "string"}},
                   "required": ["code"]}),
        );
        let (g, _) = ground_strings(&exec, "run print('hi') in python", true);
        assert_eq!(allowed(&g, "code"), ["print('hi')"]);
    }

    #[test]
    fn a_number_counting_a_number_parameter_is_not_offered_to_a_text() {
        let details = spec(json!({
            "id": {"type": "string", "description": "The listing ID"},
            "adults": {"type": "number", "description": "Number of adults"}}));
        let (n, _) = crate::narrow::ground_numbers(&details, "listing 12345678 for 2 adults");
        let (g, _) = ground_strings(&n, "listing 12345678 for 2 adults", true);
        let id = allowed(&g, "id");
        assert!(id.contains(&"12345678".to_string()), "{id:?}");
        assert!(!id.contains(&"2".to_string()), "{id:?}");
        // Without the parameter's name, the number is anyone's.
        let (n, _) = crate::narrow::ground_numbers(&details, "listing 12345678 for 2");
        let (g, _) = ground_strings(&n, "listing 12345678 for 2", true);
        assert!(allowed(&g, "id").contains(&"2".to_string()));
    }

    #[test]
    fn words_lose_their_quotes_brackets_and_final_punctuation() {
        let q = "what's in /srv/app/config.yaml? (ref e42), 'DE' v2.3.";
        let w: Vec<&str> = words(q).into_iter().map(|r| &q[r]).collect();
        assert_eq!(
            w,
            [
                "what",
                "in",
                "/srv/app/config.yaml",
                "ref",
                "e42",
                "DE",
                "v2.3"
            ]
        );
    }

    #[test]
    fn spans_hold_word_runs_quoted_texts_and_the_parts_of_slashed_words() {
        let s = query_spans("show the recent commits of github.com/denoland/deno on main");
        for want in [
            "denoland",
            "deno",
            "denoland/deno",
            "main",
            "recent commits",
        ] {
            assert!(s.contains(&want.to_string()), "{want}: {s:?}");
        }
        let s = query_spans("what files are in /home/ana/Downloads?");
        assert!(s.contains(&"/home/ana/Downloads".to_string()));
        let s = query_spans("open https://example.com/a/b now");
        assert!(s.contains(&"https://example.com/a/b".to_string()));
        assert!(!s.iter().any(|x| x == "a/b"), "a URL is not cut");
        assert!(query_spans("   ").is_empty());
    }

    #[test]
    fn spans_are_bounded_and_shortest_first() {
        let long = (0..400).map(|i| format!("w{i} ")).collect::<String>();
        let s = query_spans(&long);
        assert_eq!(s.len(), MAX_SPANS);
        assert!(s.windows(2).all(|w| w[0].len() <= w[1].len()));
        // A long quoted text survives the bound.
        let message = "please add tests for the null case and the empty case and the large case";
        let q = format!("{long} comment '{message}' on the pull request");
        let s = query_spans(&q);
        assert!(s.len() <= MAX_SPANS);
        assert!(s.contains(&message.to_string()));
    }

    #[test]
    fn an_expression_takes_the_arithmetic_and_a_scheme_its_words() {
        let calc = ToolSpec::new(
            "calculate",
            "Calculates/evaluates the given expression.",
            json!({"type": "object", "required": ["expression"], "properties": {
                "expression": {"type": "string"}}}),
        );
        let (g, _) = ground_strings(&calc, "compute (48*12) + 365/7", true);
        assert_eq!(allowed(&g, "expression"), ["(48*12) + 365/7"]);
        let (g, _) = ground_strings(&calc, "how much is 1234 times 5678?", true);
        assert_eq!(allowed(&g, "expression"), ["1234 * 5678"]);
        // No arithmetic written: the spans as before.
        let (g, _) = ground_strings(&calc, "how many seconds are in 3 weeks?", true);
        assert!(allowed(&g, "expression").len() > 1);
        let expand = ToolSpec::new(
            "expand_link",
            "Expand a link token.\n\nArgs:\n    token: A ref://<id> token from search results.",
            json!({"type": "object", "required": ["token"], "properties": {
                "token": {"type": "string"}}}),
        );
        let (g, _) = ground_strings(
            &expand,
            "what's the real URL behind ref://a7f3 from those?",
            true,
        );
        assert_eq!(allowed(&g, "token"), ["ref://a7f3"]);
        // Without cues, both stay free spans.
        let (g, _) = ground_strings(
            &expand,
            "what's the real URL behind ref://a7f3 from those?",
            false,
        );
        assert!(allowed(&g, "token").len() > 1);
    }

    #[test]
    fn a_list_of_email_addresses_takes_the_addresses_written() {
        let send = spec(json!({
            "to": {"type": "array", "items": {"type": "string"},
                   "description": "List of recipient email addresses"},
            "subject": {"type": "string", "description": "Email subject"}
        }));
        let (g, _) = ground_strings(
            &send,
            "Email jordan.lee@acme.io with the subject \"Q3 budget\" and just say: see you",
            true,
        );
        let to: Vec<String> =
            serde_json::from_value(g.parameters["properties"]["to"]["items"]["enum"].clone())
                .unwrap_or_default();
        assert_eq!(to, ["jordan.lee@acme.io"]);
    }

    #[test]
    fn an_image_reference_and_a_renaming_give_each_side_its_own_value() {
        let pull = spec(json!({
            "repository": {"type": "string"},
            "tag": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "latest"}
        }));
        let (g, _) = ground_strings(&pull, "pull the postgres:16 image", true);
        assert_eq!(allowed(&g, "repository"), ["postgres"]);
        assert_eq!(allowed(&g, "tag"), ["16"]);
        let modify = spec(json!({
            "collection_name": {"type": "string"},
            "new_name": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
        }));
        let (g, _) = ground_strings(&modify, "rename the chroma collection faq to faq_v2", true);
        assert_eq!(allowed(&g, "collection_name"), ["faq"]);
        assert_eq!(allowed(&g, "new_name"), ["faq_v2"]);
    }

    #[test]
    fn dotted_words_and_proper_names_before_their_noun_point_at_values() {
        let s = spec(json!({
            "database": {"type": "string"},
            "collection": {"type": "string"},
            "limit": {"type": "integer"}
        }));
        let (g, _) = ground_strings(&s, "pull the 20 newest orders from shop.orders", true);
        assert_eq!(allowed(&g, "database"), ["shop"]);
        assert_eq!(allowed(&g, "collection"), ["orders"]);
        let table = ToolSpec::new(
            "get_record",
            "Get one Airtable record.",
            json!({"type": "object", "properties": {
                "baseId": {"type": "string"}, "tableId": {"type": "string"}}}),
        );
        let (g, _) = ground_strings(
            &table,
            "open record recA1 from the Deals table in base appCRM0001",
            true,
        );
        assert_eq!(allowed(&g, "tableId"), ["Deals"]);
        assert_eq!(allowed(&g, "baseId"), ["appCRM0001"]);
        // A comma or a bracket ends the name word's phrase.
        for q in [
            "open record recA1 from the Deals table, base appCRM0001",
            "fields of the Deals table (airtable appCRM0001)",
        ] {
            let (g, _) = ground_strings(&table, q, true);
            assert_eq!(allowed(&g, "tableId"), ["Deals"], "{q}");
        }
        // A proper name the tool's own text uses is its service, not a value.
        let (g, _) = ground_strings(&table, "the Airtable table of recA1", true);
        assert_ne!(allowed(&g, "tableId"), ["Airtable"]);
    }

    #[test]
    fn spans_cut_at_a_small_stop_word_are_not_values() {
        for cut in ["in", "the manifest in", "insiders been", "to the cluster"] {
            assert!(loose_edged(cut), "{cut}");
        }
        for whole in ["staging", "The Hobbit", "US", "Marie Curie's"] {
            assert!(!loose_edged(whole), "{whole}");
        }
        let name = toolwright_catalog::text::words("resolve-library-id");
        assert!(opens_with("resolve react-query", &name));
        assert!(!opens_with("resolve", &name));
        assert!(!opens_with("react-query", &name));
    }

    #[test]
    fn uncued_texts_leave_out_cut_phrases_instructions_and_spaced_identifiers() {
        let s = ToolSpec::new(
            "resolve-library-id",
            "Finds a package's documentation.",
            json!({"type": "object", "properties": {
                "libraryName": {"type": "string"},
                "sessionId": {"type": "string"}
            }, "required": ["libraryName", "sessionId"]}),
        );
        let (g, _) = ground_strings(&s, "resolve react-query to a library id for sess9", true);
        let name = allowed(&g, "libraryName");
        assert!(name.contains(&"react-query".to_string()), "{name:?}");
        for gone in [
            "to",
            "to a",
            "react-query to",
            "resolve react-query",
            "a library",
        ] {
            assert!(!name.contains(&gone.to_string()), "{gone}: {name:?}");
        }
        let id = allowed(&g, "sessionId");
        assert!(id.contains(&"sess9".to_string()), "{id:?}");
        assert!(id.iter().all(|v| !v.contains(' ')), "{id:?}");
        // A quoted text stays, cut or not.
        let (g, _) = ground_strings(&s, "resolve 'in the end' to a library id", true);
        assert!(allowed(&g, "libraryName").contains(&"in the end".to_string()));
        // Nothing else left: the spans stay as they were.
        let (g, _) = ground_strings(&s, "in the", true);
        assert!(!allowed(&g, "libraryName").is_empty());
    }

    #[test]
    fn a_value_another_parameter_is_restricted_to_is_no_free_text() {
        let s = spec(json!({
            "resourceType": {"type": "string", "enum": ["deployment"]},
            "name": {"type": "string"}
        }));
        let (g, _) = ground_strings(&s, "is the rollout of deployment billing finished?", true);
        let names = allowed(&g, "name");
        assert!(names.contains(&"billing".to_string()), "{names:?}");
        assert!(!names.contains(&"deployment".to_string()), "{names:?}");
    }

    #[test]
    fn examples_in_capitals_ask_for_a_word_in_capitals() {
        let s = ToolSpec::new(
            "get_holders",
            "Get shareholder information for a stock.\n\nArgs:\n    symbol: Ticker symbol (e.g., AAPL, MSFT)",
            json!({"type": "object", "properties": {"symbol": {"type": "string"}},
                   "required": ["symbol"]}),
        );
        let (g, _) = ground_strings(&s, "have META insiders been selling shares recently?", true);
        assert_eq!(allowed(&g, "symbol"), ["META"]);
        // None written so: the spans stay.
        let (g, _) = ground_strings(&s, "Netflix quarterly earnings history", true);
        assert!(allowed(&g, "symbol").contains(&"Netflix".to_string()));
        assert!(in_capitals("V") && in_capitals("BRK.B") && !in_capitals("I"));
    }

    #[test]
    fn free_strings_take_spans_and_typed_ones_stay_free() {
        let s = spec(json!({
            "owner": {"type": "string"},
            "repo": {"type": ["string", "null"]},
            "state": {"type": "string", "enum": ["open", "closed"]},
            "since": {"type": "string", "format": "date-time"},
            "sha": {"type": "string", "pattern": "^[0-9a-f]+$"},
            "count": {"type": "integer"},
            "labels": {"type": "array", "items": {"type": "string"}}
        }));
        let (g, report) =
            ground_strings(&s, "list the open issues of acme/webapp labeled bug", true);
        assert_eq!(report, ["owner", "repo", "labels"]);
        assert!(allowed(&g, "owner").contains(&"acme".to_string()));
        assert!(allowed(&g, "repo").contains(&"webapp".to_string()));
        let items: Vec<String> =
            serde_json::from_value(g.parameters["properties"]["labels"]["items"]["enum"].clone())
                .unwrap();
        assert!(items.contains(&"bug".to_string()));
        for k in ["state", "since", "sha", "count"] {
            assert_eq!(
                g.parameters["properties"][k], s.parameters["properties"][k],
                "{k}"
            );
        }
    }

    #[test]
    fn examples_of_another_shape_leave_the_parameter_free() {
        let s = spec(json!({
            "timezone": {"type": "string",
                         "description": "IANA timezone name (e.g., 'America/New_York')."},
            "path": {"type": "string", "description": "Path, for example /home/user/notes.txt"}
        }));
        let (_, report) = ground_strings(&s, "what time is it in Tokyo right now?", false);
        assert!(report.is_empty(), "{report:?}");
        let (g, report) = ground_strings(&s, "time in Europe/Paris, then read /srv/a/b.txt", true);
        assert_eq!(report, ["timezone", "path"]);
        assert!(allowed(&g, "timezone").contains(&"Europe/Paris".to_string()));
        assert!(allowed(&g, "path").contains(&"/srv/a/b.txt".to_string()));
    }

    #[test]
    fn a_text_that_matches_part_of_a_name_takes_the_quoted_text() {
        let s = spec(json!({"group_name_contains": {"type": "string"}}));
        let (g, _) = ground_strings(&s, "find host groups with 'kubernetes' in the name", true);
        assert_eq!(allowed(&g, "group_name_contains"), ["kubernetes"]);
    }

    #[test]
    fn examples_are_read_after_their_cues_whatever_the_text_around_them() {
        let ex = |d: &str| examples(&json!({"type": "string", "description": d}));
        assert_eq!(ex("Zone (e.g. America/New_York)."), ["America/New_York"]);
        assert_eq!(
            ex("Zone, e.g., 'Europe/Paris'"),
            ["Europe/Paris", "Europe/Paris"]
        );
        assert_eq!(ex("A path, for example /srv/a.txt"), ["/srv/a.txt"]);
        // Letters whose lowercase is longer than they are do not shift the offsets.
        assert_eq!(ex("İİİ Zone, e.g. UTC"), ["UTC"]);
        assert!(ex("No example here.").is_empty());
    }

    #[test]
    fn shapes_count_a_run_of_joined_parts_once() {
        assert_eq!(shape("America/New_York"), shape("Europe/Paris"));
        assert_eq!(shape("/home/ana/src/shop"), shape("/path/to/file"));
        assert_eq!(shape("09:30"), "w:w");
        assert_ne!(shape("Tokyo"), shape("Asia/Tokyo"));
        // An example that elides part of a word has the word's shape.
        assert_eq!(
            shape("19:meeting_Njhi..j@thread.v2"),
            shape("19:meeting_NjQ2ZTI3YjEtZDQ0Zi00@thread.v2")
        );
        assert_eq!(shape("abc…def"), "w");
        assert_eq!(shape("../up"), "../w");
        assert_ne!(shape("a.b"), "w");
    }

    #[test]
    fn cues_narrow_a_parameter_to_the_value_the_request_points_at() {
        let s = spec(json!({
            "channel_id": {"type": "string"},
            "path": {"type": "string"},
            "text": {"type": "string"}
        }));
        let q = "post the summary of /srv/app/log.txt in slack channel C0ENG42";
        let (g, report) = ground_strings(&s, q, true);
        assert_eq!(report, ["channel_id", "path", "text"]);
        assert_eq!(allowed(&g, "channel_id"), ["C0ENG42"]);
        assert_eq!(allowed(&g, "path"), ["/srv/app/log.txt"]);
        // No cue for `text`: every span stays, but the parts of the path `path` took.
        let text = allowed(&g, "text");
        assert!(
            text.len() > 4 && text.contains(&"summary".to_string()),
            "{text:?}"
        );
        assert!(!text.contains(&"srv/app".to_string()), "{text:?}");
        let (g, _) = ground_strings(&s, q, false);
        assert!(allowed(&g, "channel_id").contains(&"slack".to_string()));
    }

    #[test]
    fn patterned_and_formatted_strings_take_the_spans_their_schema_accepts() {
        let s = spec(json!({
            "issue_key": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]+-\\d+$"},
            "user": {"type": "string", "format": "uuid"},
            "since": {"type": "string", "format": "date"}
        }));
        let q = "move PROJ-88 to user 6794760a-1f15-45cd-9c65-0dfe42f5135a since last week";
        let (g, report) = ground_strings(&s, q, true);
        assert_eq!(report, ["issue_key", "user"]);
        assert_eq!(allowed(&g, "issue_key"), ["PROJ-88"]);
        assert_eq!(
            allowed(&g, "user"),
            ["6794760a-1f15-45cd-9c65-0dfe42f5135a"]
        );
        assert_eq!(
            g.parameters["properties"]["since"],
            s.parameters["properties"]["since"]
        );
    }

    #[test]
    fn a_zone_parameter_takes_the_zones_of_the_places_named() {
        let s = spec(json!({
            "timezone": {"type": "string",
                         "description": "IANA timezone name (e.g., 'America/New_York')."}
        }));
        let (g, report) = ground_strings(&s, "what time is it in Tokyo right now?", true);
        assert_eq!(report, ["timezone"]);
        assert_eq!(allowed(&g, "timezone"), ["Asia/Tokyo"]);
        let (_, report) = ground_strings(&s, "what time is it in Tokyo right now?", false);
        assert!(report.is_empty());
    }

    #[test]
    fn a_file_placed_in_a_directory_is_one_path() {
        let write = spec(json!({"path": {"type": "string"}, "content": {"type": "string"}}));
        let (g, _) = ground_strings(
            &write,
            "save a file todo.md in /home/ana with the text '- buy milk'",
            true,
        );
        assert_eq!(allowed(&g, "path"), ["/home/ana/todo.md"]);
        let (g, _) = ground_strings(&write, "save todo.md in /home/ana", false);
        assert!(allowed(&g, "path").contains(&"todo.md".to_string()));
        let read = spec(json!({"paths": {"type": "array", "items": {"type": "string"}}}));
        let (g, _) = ground_strings(
            &read,
            "Compare package.json and package-lock.json in /srv/web",
            true,
        );
        assert_eq!(
            g.parameters["properties"]["paths"]["items"]["enum"],
            json!(["/srv/web/package.json", "/srv/web/package-lock.json"])
        );
        let mv = spec(json!({"source": {"type": "string"}, "destination": {"type": "string"}}));
        let (g, _) = ground_strings(
            &mv,
            "move report.pdf from /home/ana/Downloads into /home/ana/Documents",
            true,
        );
        assert_eq!(allowed(&g, "source"), ["/home/ana/Downloads/report.pdf"]);
        assert_eq!(
            allowed(&g, "destination"),
            ["/home/ana/Documents/report.pdf"]
        );
        // A directory parameter keeps the directory; a file not placed by a preposition stays.
        let list = spec(json!({"directory": {"type": "string"}}));
        let (g, _) = ground_strings(&list, "todo.md in /home/ana", true);
        assert_eq!(allowed(&g, "directory"), ["todo.md", "/home/ana"]);
        let search = spec(json!({"path": {"type": "string"}, "pattern": {"type": "string"}}));
        let (g, _) = ground_strings(&search, "find every .csv file anywhere under /data", true);
        assert_eq!(allowed(&g, "path"), [".csv", "/data"]);
        assert_eq!(
            crate::cues::placed_files(
                "copy notes.txt to /tmp/backup.txt, or ab.txt into the folder ~/x/"
            ),
            [("ab.txt".to_string(), "~/x/".to_string())]
        );
    }

    #[test]
    fn a_moves_ends_take_two_shared_values_in_order() {
        let desc = "IANA timezone name (e.g., 'America/New_York').";
        let s = spec(json!({
            "source_timezone": {"type": "string", "description": desc},
            "target_timezone": {"type": "string", "description": desc},
            "time": {"type": "string"}
        }));
        let (g, _) = ground_strings(&s, "convert 9:30 am Berlin time to Los Angeles time", true);
        assert_eq!(allowed(&g, "source_timezone"), ["Europe/Berlin"]);
        assert_eq!(allowed(&g, "target_timezone"), ["America/Los_Angeles"]);
    }

    #[test]
    fn length_bounds_are_kept() {
        let s = spec(json!({"code": {"type": "string", "minLength": 2, "maxLength": 2}}));
        let (g, _) = ground_strings(&s, "choose DE in the country list", true);
        // (`in` fits the length too, but a small stop word is no value.)
        assert_eq!(allowed(&g, "code"), ["DE"]);
    }

    #[test]
    fn the_tools_own_service_word_is_no_identifier() {
        let s = ToolSpec::new(
            "query-docs",
            "Retrieves documentation from Context7 for any library.",
            json!({"type": "object", "required": ["libraryId"], "properties": {
                "libraryId": {"type": "string", "description": "Exact library ID (e.g., '/mongodb/docs')."}}}),
        );
        let (g, _) = ground_strings(
            &s,
            "get current docs from context7 /mongodb/docs about change streams",
            true,
        );
        let lib = allowed(&g, "libraryId");
        // No cue picks the service's name: every span stays, the path among them.
        assert_ne!(lib, ["context7"]);
        assert!(lib.iter().any(|v| v == "/mongodb/docs"));
        // Another tool's identifier is taken.
        let s = ToolSpec::new(
            "retrieve_from_aws_kb",
            "Retrieve passages from an AWS knowledge base.",
            json!({"type": "object", "required": ["knowledgeBaseId", "query"], "properties": {
                "knowledgeBaseId": {"type": "string", "description": "The ID of the AWS Knowledge Base"},
                "query": {"type": "string"}}}),
        );
        let (g, _) = ground_strings(
            &s,
            "check knowlege base SUP9988ZZ for known problems with the v3 firmware",
            true,
        );
        assert_eq!(allowed(&g, "knowledgeBaseId"), ["SUP9988ZZ"]);
    }

    fn airtable(name: &str, props: &[&str]) -> ToolSpec {
        let mut m = serde_json::Map::new();
        for p in props {
            let what = p.trim_end_matches("Id");
            m.insert(
                (*p).to_string(),
                json!({"type": "string", "description": format!("The ID of the {what}")}),
            );
        }
        ToolSpec::new(
            name,
            "An Airtable tool.",
            json!({"type": "object", "properties": m, "required": props}),
        )
    }

    #[test]
    fn one_value_goes_to_one_parameter() {
        // `rec…` names the record, `tbl…` the table: the base takes what is left.
        let t = airtable("list_comments", &["baseId", "tableId", "recordId"]);
        let (g, _) = ground_strings(&t, "comments on recD77, base appCRM0001", true);
        assert_eq!(allowed(&g, "recordId"), ["recD77"]);
        assert_eq!(allowed(&g, "baseId"), ["appCRM0001"]);
        let t = airtable("update_table", &["baseId", "tableId"]);
        let (g, _) = ground_strings(&t, "rename table tblQ3Goals in appX1y2Z3abc", true);
        assert_eq!(allowed(&g, "tableId"), ["tblQ3Goals"]);
        assert_eq!(allowed(&g, "baseId"), ["appX1y2Z3abc"]);
        // An address the e-mail parameter takes is not offered as the name.
        let c = ToolSpec::new(
            "create_customer",
            "Create a customer.",
            json!({"type": "object", "properties": {
                "name": {"type": "string"}, "email": {"type": "string"}}}),
        );
        let (g, _) = ground_strings(&c, "add Jordan Blake (jordan.blake@example.com)", true);
        assert_eq!(allowed(&g, "email"), ["jordan.blake@example.com"]);
        assert!(!allowed(&g, "name").contains(&"jordan.blake@example.com".to_string()));
        assert!(allowed(&g, "name").contains(&"Jordan Blake".to_string()));
        // Nor is a span holding it.
        let (g, _) = ground_strings(
            &c,
            "add Jordan Blake (jordan.blake@example.com) as one",
            true,
        );
        let name = allowed(&g, "name");
        assert!(
            name.iter().all(|v| !v.contains("jordan.blake@")),
            "{name:?}"
        );
        assert!(name.contains(&"Jordan Blake".to_string()));
    }

    #[test]
    fn a_clock_time_is_written_as_the_parameter_asks() {
        let t = ToolSpec::new(
            "convert_time",
            "Convert time between timezones.",
            json!({"type": "object", "required": ["time"], "properties": {
                "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"}}}),
        );
        let (g, _) = ground_strings(&t, "convert 9:30 pm Berlin time to Los Angeles time", true);
        assert_eq!(allowed(&g, "time"), ["21:30"]);
    }

    #[test]
    fn a_word_the_tool_quotes_as_a_value_is_one() {
        let t = ToolSpec::new(
            "fetch_content",
            "Fetch a page. backend: one of 'httpx', 'curl' (bypasses bot filters) or 'auto'. \
             Uses curl when blocked.",
            json!({"type": "object", "properties": {
                "url": {"type": "string"},
                "backend": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}}}),
        );
        let q = "fetch https://example.com/pricing with the curl backend, the site blocks bots";
        let (g, _) = ground_strings(&t, q, true);
        assert_eq!(allowed(&g, "backend"), ["curl"]);
    }

    #[test]
    fn optional_strings_and_dates_are_grounded() {
        // pydantic's `Optional[str]` is a string; a date parameter takes the request's dates,
        // start and end in the request's order.
        let t = ToolSpec::new(
            "get_price_history",
            "Price history of a stock.",
            json!({"type": "object", "properties": {
                "symbol": {"type": "string"},
                "start": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "end": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}},
              "required": ["symbol", "start", "end"]}),
        );
        let (g, _) = ground_strings(&t, "AAPL prices between 2024-03-01 and 2024-03-08", true);
        assert_eq!(allowed(&g, "start"), ["2024-03-01"]);
        assert_eq!(allowed(&g, "end"), ["2024-03-08"]);
        assert!(!allowed(&g, "symbol").contains(&"2024-03-01".to_string()));
    }

    /// A tool with one required parameter, `title`.
    fn titled(name: &str, description: &str) -> ToolSpec {
        ToolSpec::new(
            name,
            description,
            json!({"type": "object", "properties": {"title": {"type": "string"}},
                   "required": ["title"]}),
        )
    }

    #[test]
    fn a_bare_title_takes_the_name_of_what_the_tool_acts_on() {
        let t = titled(
            "extract_key_facts",
            "Extract key facts from a Wikipedia article, optionally focused on a topic.",
        );
        let (g, _) = ground_strings(&t, "main facts from wikipedia's Japan article", true);
        assert_eq!(allowed(&g, "title"), ["Japan"]);
    }

    #[test]
    fn a_title_nothing_points_at_is_the_proper_name_written() {
        let t = titled("get_summary", "Get a summary of a Wikipedia article.");
        let (g, _) = ground_strings(&t, "gps coords from the Eiffel Tower wikipedia page", true);
        assert_eq!(allowed(&g, "title"), ["Eiffel Tower"]);
        let (g, _) = ground_strings(
            &t,
            "wikipedia entry for Python (programming language)",
            true,
        );
        assert_eq!(allowed(&g, "title"), ["Python (programming language)"]);
        // A quoted text is the quote passes' to give; small letters name nothing.
        let (g, _) = ground_strings(&t, "summary of 'Ada Lovelace' for New York", true);
        assert_eq!(allowed(&g, "title"), ["Ada Lovelace"]);
        let (g, _) = ground_strings(&t, "summary of photosynthesis", true);
        assert!(allowed(&g, "title").contains(&"photosynthesis".to_string()));
        // A name takes two capitals, and claims nothing another parameter could take.
        let c = ToolSpec::new(
            "create_customer",
            "Create a customer.",
            json!({"type": "object", "properties": {"name": {"type": "string"},
                   "label": {"type": "string"}}, "required": ["name", "label"]}),
        );
        let (g, _) = ground_strings(&c, "add Jordan Blake as a customer", true);
        assert_eq!(allowed(&g, "name"), ["Jordan Blake"]);
        assert!(allowed(&g, "label").contains(&"Jordan Blake".to_string()));
        let (g, _) = ground_strings(&c, "pod web-1 is stuck Pending", true);
        assert!(allowed(&g, "name").len() > 1);
    }

    #[test]
    fn the_tools_own_words_are_offered_only_as_its_examples() {
        let t = ToolSpec::new(
            "get_price_history",
            "Get historical price data for a stock.",
            json!({"type": "object", "properties": {
                "symbol": {"type": "string", "description": "Ticker symbol (e.g., AAPL, MSFT)"},
                "note": {"type": "string"}}, "required": ["symbol", "note"]}),
        );
        let (g, _) = ground_strings(&t, "hourly AAPL price data for stock records", true);
        let symbol = allowed(&g, "symbol");
        assert!(symbol.contains(&"AAPL".to_string()));
        // "stock" and "price" are the tool's own terms: no value, with or without a cue.
        assert!(!symbol.contains(&"stock".to_string()) && !symbol.contains(&"price".to_string()));
        // The examples are in capitals, and so is `AAPL`: the other words go.
        assert_eq!(symbol, ["AAPL"]);
        let (g, _) = ground_strings(&t, "hourly apple price data for stock records", true);
        assert!(allowed(&g, "symbol").contains(&"records".to_string()));
    }

    #[test]
    fn a_slashed_value_and_its_parts_are_one_claim() {
        let t = ToolSpec::new(
            "get_file_contents",
            "Get the contents of a file from a GitLab project.",
            json!({"type": "object", "properties": {"project_id": {"type": "string"},
                   "file_path": {"type": "string"}}, "required": ["project_id", "file_path"]}),
        );
        let q = "read .gitlab-ci.yml from the gitlab project mygroup/backend";
        let (g, _) = ground_strings(&t, q, true);
        assert_eq!(allowed(&g, "project_id")[0], "mygroup/backend");
        assert_eq!(allowed(&g, "file_path"), [".gitlab-ci.yml"]);
        // A path's name word points at the path, whole: "repo" of `repo_path`.
        let a = ToolSpec::new(
            "git_add",
            "Stage files.",
            json!({"type": "object", "properties": {"repo_path": {"type": "string"},
                   "files": {"type": "array", "items": {"type": "string"}}},
                   "required": ["repo_path", "files"]}),
        );
        let q = "stage src/cart.rs and src/lib.rs in the repo at /home/ana/src/shop";
        let (g, _) = ground_strings(&a, q, true);
        assert_eq!(allowed(&g, "repo_path"), ["/home/ana/src/shop"]);
    }

    #[test]
    fn a_quantity_a_number_parameter_takes_is_not_a_text() {
        let s = spec(json!({
            "key": {"type": "string", "description": "Redis key"},
            "value": {"type": "string", "description": "Value to store"},
            "expireSeconds": {"type": "number", "description": "Optional expiration time in seconds"}
        }));
        let q = "store the key session:42 with value active for 10 minutes";
        let (g, _) = ground_strings(&s, q, true);
        let offers = g.parameters["properties"]["value"]["enum"].clone();
        let offers: Vec<&str> = offers
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(offers.contains(&"active"), "{offers:?}");
        assert!(!offers.iter().any(|o| o.contains("10")), "{offers:?}");
        // Quoted, the same words are a value.
        let q = "store the key s:1 with value 'up for 10 minutes' for 10 minutes";
        let (g, _) = ground_strings(&s, q, true);
        let offers = g.parameters["properties"]["value"]["enum"].clone();
        assert!(
            offers
                .as_array()
                .unwrap()
                .contains(&json!("up for 10 minutes")),
            "{offers}"
        );
    }

    #[test]
    fn a_taken_path_lends_no_parts_to_other_parameters() {
        let s = spec(json!({
            "path": {"type": "string", "description": "Path to the Git repository."},
            "object": {"type": "string", "description": "Git object to show (commit hash, branch, tag)."}
        }));
        let (g, _) = ground_strings(&s, "show the commit HEAD~1 in /tmp/smoke3/repo", true);
        let props = &g.parameters["properties"];
        assert_eq!(props["path"]["enum"], json!(["/tmp/smoke3/repo"]));
        let offers = props["object"]["enum"].as_array().unwrap();
        assert!(offers.contains(&json!("HEAD~1")), "{offers:?}");
        for part in ["tmp", "repo", "smoke3/repo", "tmp/smoke3/repo"] {
            assert!(!offers.contains(&json!(part)), "{part} in {offers:?}");
        }
        assert!(part_of_path("smoke3", "/tmp/smoke3/repo"));
        assert!(
            !part_of_path("webapp", "acme/webapp"),
            "not a path: a name's sides stay"
        );
    }

    #[test]
    fn a_bracket_closing_one_inside_the_word_stays() {
        let q = "fill input[name=email] with x (ref e42), then f(x).";
        let got: Vec<&str> = words(q).into_iter().filter_map(|r| q.get(r)).collect();
        assert_eq!(
            got,
            [
                "fill",
                "input[name=email]",
                "with",
                "x",
                "ref",
                "e42",
                "then",
                "f(x)"
            ]
        );
    }
}
