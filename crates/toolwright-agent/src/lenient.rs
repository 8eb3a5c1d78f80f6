//! A tolerant JSON reader for model output: code fences, text around the object, single quotes,
//! trailing commas, unquoted keys, Python literals, comments and a truncated end are accepted.
//!
//! It never panics and never recurses deeper than [`MAX_DEPTH`]; what it cannot read comes back
//! as a [`LenientError`] that says where, so the re-prompt can quote it.
//!
//! ```
//! use toolwright_agent::lenient::parse;
//! let v = parse("Sure! ```json\n{'tool': 'calculate', 'args': {'expression': '17*23',},}\n``` Done.").unwrap();
//! assert_eq!(v["args"]["expression"], "17*23");
//! ```

use serde_json::{Map, Number, Value};

/// Deepest nesting read.
pub const MAX_DEPTH: usize = 64;

/// Why the text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {position})")]
pub struct LenientError {
    /// What was wrong.
    pub message: String,
    /// 0-based character offset in the text that was read (after fences were removed).
    pub position: usize,
}

/// Reads the first JSON object (or array) in `text`, tolerantly.
///
/// # Errors
/// No object in the text, or one that cannot be repaired.
pub fn parse(text: &str) -> Result<Value, LenientError> {
    let fenced = strip_fences(text);
    let body = if fenced.contains('{') || fenced.contains('[') {
        fenced
    } else {
        text
    };
    // Strict JSON first: cheapest and exact.
    if let Ok(v) = serde_json::from_str::<Value>(body.trim())
        && (v.is_object() || v.is_array())
    {
        return Ok(v);
    }
    let chars: Vec<char> = body.chars().collect();
    let start = chars
        .iter()
        .position(|c| *c == '{')
        .or_else(|| chars.iter().position(|c| *c == '['))
        .ok_or_else(|| LenientError {
            message: "no JSON object found".to_string(),
            position: 0,
        })?;
    let mut p = Reader {
        s: &chars,
        pos: start,
        depth: 0,
    };
    p.value()
}

/// The content of the first fenced code block, or the whole text.
fn strip_fences(text: &str) -> &str {
    let Some(open) = text.find("```") else {
        return text;
    };
    let after = text.get(open + 3..).unwrap_or_default();
    // Skip the info string (```json).
    let body_start = after.find('\n').map_or(0, |i| i + 1);
    let body = after.get(body_start..).unwrap_or_default();
    match body.find("```") {
        Some(close) => body.get(..close).unwrap_or(body),
        None => body,
    }
}

struct Reader<'a> {
    s: &'a [char],
    pos: usize,
    depth: usize,
}

impl Reader<'_> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, LenientError> {
        Err(LenientError {
            message: message.into(),
            position: self.pos,
        })
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => self.pos += 1,
                Some('/') if self.s.get(self.pos + 1) == Some(&'/') => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                Some('/') if self.s.get(self.pos + 1) == Some(&'*') => {
                    self.pos += 2;
                    while self.pos < self.s.len()
                        && !(self.peek() == Some('*') && self.s.get(self.pos + 1) == Some(&'/'))
                    {
                        self.pos += 1;
                    }
                    self.pos = (self.pos + 2).min(self.s.len());
                }
                _ => return,
            }
        }
    }

    fn value(&mut self) -> Result<Value, LenientError> {
        self.skip_ws();
        match self.peek() {
            None => self.err("the text ends where a value was expected"),
            Some('{') => self.nested(Reader::object),
            Some('[') => self.nested(Reader::array),
            Some(q @ ('"' | '\'' | '“' | '‘')) => self.string(q).map(Value::String),
            Some(c) if c == '-' || c == '+' || c == '.' || c.is_ascii_digit() => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => {
                let word = self.word();
                match word.as_str() {
                    "true" | "True" | "TRUE" => Ok(Value::Bool(true)),
                    "false" | "False" | "FALSE" => Ok(Value::Bool(false)),
                    "null" | "None" | "NULL" | "nil" | "undefined" => Ok(Value::Null),
                    _ => self.err(format!(
                        "unexpected word `{}`; strings need quotes",
                        short(&word)
                    )),
                }
            }
            Some(c) => self.err(format!("unexpected character `{c}`")),
        }
    }

    fn nested(
        &mut self,
        f: fn(&mut Self) -> Result<Value, LenientError>,
    ) -> Result<Value, LenientError> {
        if self.depth >= MAX_DEPTH {
            return self.err(format!("nesting deeper than {MAX_DEPTH}"));
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn word(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || c == '$' {
                w.push(c);
                self.pos += 1;
            } else {
                break;
            }
        }
        w
    }

    fn object(&mut self) -> Result<Value, LenientError> {
        self.pos += 1; // '{'
        let mut map = Map::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Ok(Value::Object(map)), // truncated: close it
                Some('}') => {
                    self.pos += 1;
                    return Ok(Value::Object(map));
                }
                Some(',') => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let key = match self.peek() {
                Some(q @ ('"' | '\'' | '“' | '‘')) => self.string(q)?,
                Some(c) if c.is_alphanumeric() || c == '_' || c == '$' => self.word(),
                Some(c) => return self.err(format!("expected a key, found `{c}`")),
                None => return Ok(Value::Object(map)),
            };
            self.skip_ws();
            match self.peek() {
                Some(':') | Some('=') => self.pos += 1,
                None => return Ok(Value::Object(map)),
                Some(c) => {
                    return self.err(format!(
                        "expected `:` after key `{}`, found `{c}`",
                        short(&key)
                    ));
                }
            }
            let v = self.value()?;
            map.insert(key, v);
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some('}') | None => {}
                Some(c) if c == '"' || c == '\'' || c.is_alphabetic() => {} // missing comma
                Some(c) => return self.err(format!("expected `,` or `}}`, found `{c}`")),
            }
        }
    }

    fn array(&mut self) -> Result<Value, LenientError> {
        self.pos += 1; // '['
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Ok(Value::Array(items)),
                Some(']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                Some(',') => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(']') | None => {}
                Some('}') => return self.err("`}` closes an array; expected `]`"),
                Some(_) => {} // missing comma: read the next item
            }
        }
    }

    fn string(&mut self, open: char) -> Result<String, LenientError> {
        let close = match open {
            '“' => '”',
            '‘' => '’',
            q => q,
        };
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Ok(out); // truncated: close it
            };
            self.pos += 1;
            if c == close {
                return Ok(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.peek() else {
                return Ok(out);
            };
            self.pos += 1;
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'u' => {
                    let hex: String = self.s.iter().skip(self.pos).take(4).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) if hex.len() == 4 => {
                            out.push(ch);
                            self.pos += 4;
                        }
                        _ => out.push('\u{fffd}'),
                    }
                }
                other => out.push(other),
            }
        }
    }

    fn number(&mut self) -> Result<Value, LenientError> {
        let start = self.pos;
        let mut text = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E' | '_') {
                if c != '_' {
                    text.push(c);
                }
                self.pos += 1;
            } else {
                break;
            }
        }
        let t = text.strip_prefix('+').unwrap_or(&text);
        if let Ok(i) = t.parse::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        let fixed = if t.starts_with('.') {
            format!("0{t}")
        } else if let Some(rest) = t.strip_prefix("-.") {
            format!("-0.{rest}")
        } else {
            t.trim_end_matches('.').to_string()
        };
        match fixed.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) => Ok(Value::Number(n)),
            None => {
                self.pos = start;
                self.err(format!("`{}` is not a number", short(&text)))
            }
        }
    }
}

fn short(s: &str) -> String {
    crate::http::shorten(s, 40)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_mangled_objects() {
        let cases = [
            ("{\"a\": 1}", json!({"a": 1})),
            ("```json\n{\"a\": 1}\n```", json!({"a": 1})),
            (
                "Here you go: {\"a\": 1} hope it helps {\"b\": 2}",
                json!({"a": 1}),
            ),
            ("{'a': 'x', 'b': [1, 2,],}", json!({"a": "x", "b": [1, 2]})),
            (
                "{a: True, b: None, c: False}",
                json!({"a": true, "b": null, "c": false}),
            ),
            ("{\"a\": {\"b\": 1", json!({"a": {"b": 1}})),
            ("{\"a\": \"unterminated", json!({"a": "unterminated"})),
            (
                "{\"a\": .5, \"b\": -.5, \"c\": +3}",
                json!({"a": 0.5, "b": -0.5, "c": 3}),
            ),
            ("{// comment\n\"a\": 1 /* x */}", json!({"a": 1})),
            ("{\"a\": \"it's\"}", json!({"a": "it's"})),
            ("{\"a\": 1 \"b\": 2}", json!({"a": 1, "b": 2})),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn errors_say_where() {
        let e = parse("no json here").unwrap_err();
        assert!(e.message.contains("no JSON object"));
        let e = parse("{\"a\": nope}").unwrap_err();
        assert!(e.message.contains("nope"), "{e}");
        let deep = "[".repeat(10_000);
        assert!(parse(&deep).is_err());
    }
}
