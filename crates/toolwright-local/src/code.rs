//! Code a request writes for a code parameter.
//!
//! A code runner's `code` parameter, offered every span of "execute the javascript
//! console.log([1,2,3].length)", was given `execute`. People write the code itself inline, as
//! code: [`written`] finds the spans that read as code (a call, an assignment, a block: `(`,
//! `{`, `=` or `;` in a word), each taken from its first word to where its brackets and quotes
//! close, so `console.log([1, 2, 3].length)` stays whole with its spaces. [`takes_code`] says
//! which parameters take code: `code`, `script`, `snippet` or `program` in the name, or a
//! description that speaks of a code snippet, source code or code to run.

/// Whether parameter `name`, documented as `doc`, takes code to run.
///
/// ```
/// use toolwright_local::code::takes_code;
/// assert!(takes_code("code", "Code Snippet"));
/// assert!(takes_code("input", "The Python source code to execute"));
/// assert!(!takes_code("source", "The source language code, e.g. 'en-US'"));
/// assert!(!takes_code("zip_code", "Postal code"));
/// ```
pub fn takes_code(name: &str, doc: &str) -> bool {
    let words = crate::cues::name_words(name);
    let named = match words.as_slice() {
        [w] => matches!(w.as_str(), "code" | "script" | "snippet" | "program"),
        _ => words
            .last()
            .is_some_and(|w| matches!(w.as_str(), "script" | "snippet")),
    };
    let d = doc.to_lowercase();
    named
        || d.contains("code snippet")
        || d.contains("source code")
        || d.contains("code to run")
        || d.contains("code to execute")
}

/// The spans of `query` written as code (see the module docs), in the request's order.
///
/// ```
/// use toolwright_local::code::written;
/// assert_eq!(written("execute the javascript console.log([1, 2, 3].length)"),
///     ["console.log([1, 2, 3].length)"]);
/// assert_eq!(written("run print('hi') in python"), ["print('hi')"]);
/// assert_eq!(written("set x=5; then print(x) please"), ["x=5;", "print(x)"]);
/// assert!(written("run the tests in the repo").is_empty());
/// ```
pub fn written(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(start) = next_code_word(query, at) {
        let end = closing(query, start);
        let span = query
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['?', '!', ','])
            .trim();
        if !span.is_empty() {
            out.push(span.to_string());
        }
        at = end.max(start + 1);
    }
    out
}

/// Where the next word from byte `from` that reads as code starts.
fn next_code_word(query: &str, from: usize) -> Option<usize> {
    let rest = query.get(from..)?;
    let mut offset = from;
    for word in rest.split_inclusive(char::is_whitespace) {
        let w = word.trim_end();
        let code = w.contains(['(', '{', ';'])
            || (w.contains('=') && !w.starts_with('=') && !w.contains("://"));
        if code && w.chars().any(char::is_alphanumeric) {
            return Some(offset);
        }
        offset += word.len();
    }
    None
}

/// Where the code starting at byte `start` ends: the end of the word where its brackets and
/// quotes have all closed (or the end of the request).
fn closing(query: &str, start: usize) -> usize {
    let (mut depth, mut quote): (i32, Option<char>) = (0, None);
    for (i, c) in query.get(start..).unwrap_or("").char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, c) if c.is_whitespace() && depth <= 0 => return start + i,
            _ => {}
        }
    }
    query.len()
}
