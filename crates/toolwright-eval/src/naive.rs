//! The naive baseline: the Berkeley Function Calling Leaderboard's own single shot for a
//! prompt-based model ("FC = False"), reproduced exactly.
//!
//! Why this baseline: it is what a practitioner runs to measure a model that has no native tool
//! calling, and it is the setup the leaderboard publishes numbers for, so nothing here is a
//! strawman of ours. Source: the `bfcl-eval` package (PyPI, Apache-2.0; version 2026.3.23 checked):
//!
//! - the system prompt is `formulate_system_prompt` in `bfcl_eval/model_handler/utils.py` with
//!   the default `DEFAULT_SYSTEM_PROMPT_FORMAT` of `bfcl_eval/constants/default_prompts.py`
//!   (`ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic`):
//!   the "classic" persona and task, the Python call-list output format
//!   `[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]`,
//!   and every function of the task as `json.dumps(functions, indent=4)` ([`bfcl_system_prompt`]);
//! - the user's question follows as the user message (`system_prompt_pre_processing_chat_model`);
//! - the answer is decoded like `default_decode_ast_prompting` + `ast_parse` (same file): strip
//!   backticks, newlines and spaces, wrap in `[...]`, strip single quotes, parse the Python
//!   expression, keep each call's keyword arguments ([`decode_python_calls`]). Output that does
//!   not decode is no call (BFCL scores it wrong, except in `irrelevance`, where it counts as a
//!   refusal).
//!
//! Not a native-tool-call variant: the embedded SmolLM2-135M-Instruct's chat template (in its
//! GGUF) is plain ChatML without any tool syntax, so BFCL's prompt is the format this model
//! gets. For a remote model behind `--provider openai|anthropic`, naive is the same prompt over
//! plain chat (no `tools` in the request).
//!
//! One request, greedy decoding, every tool in the prompt; no grammar, no validation feedback, no
//! routing, no retries. The calls are scored as the model wrote them. Each decoded call is also
//! validated by the runtime, but only so the report can show its envelope: nothing goes back to
//! the model.

use crate::run::{Attempt, PreparedTask};
use crate::score::Call;
use serde_json::{Map, Number, Value};
use toolwright_agent::{Message, Provider, Turn};
use toolwright_core::ToolCall;
use toolwright_runtime::CallOptions;

/// BFCL's default system prompt for prompt-based models, with `functions` (the task's
/// definitions as given, BFCL's own format) in it.
pub fn bfcl_system_prompt(functions: &[Value]) -> String {
    // PROMPT_STYLE_TEMPLATES["classic"], formatted as formulate_system_prompt does with
    // return_format=python (PARAM_TYPE_MAPPING["python"] == "", hence the double space) into
    // _PLAINTEXT_SYSTEM_PROMPT_TEMPLATE = "{persona}{task}\n\n{tool_call_format}\n\n{multiturn_behavior}\n\n{available_tools}".
    const PERSONA: &str = "You are an expert in composing functions.";
    const TASK: &str = "You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.";
    const TOOL_CALL_FORMAT: &str = "You should only return the function calls in your response.\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  You SHOULD NOT include any other text in the response.";
    const MULTITURN: &str = "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.";
    let docs = python_json_dumps(&Value::Array(functions.to_vec()));
    format!(
        "{PERSONA}{TASK}\n\n{TOOL_CALL_FORMAT}\n\n{MULTITURN}\n\nHere is a list of functions in json format that you can invoke.\n{docs}\n"
    )
}

/// `json.dumps(value, indent=4)` as Python writes it (`", "`/`": "` separators, 4-space indent,
/// non-ASCII escaped).
pub fn python_json_dumps(value: &Value) -> String {
    let mut out = String::new();
    dump(value, 0, &mut out);
    out
}

fn dump(value: &Value, depth: usize, out: &mut String) {
    let pad = |d: usize, out: &mut String| {
        out.push('\n');
        out.push_str(&" ".repeat(4 * d));
    };
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => dump_str(s, out),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(depth + 1, out);
                dump(v, depth + 1, out);
            }
            pad(depth, out);
            out.push(']');
        }
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(depth + 1, out);
                dump_str(k, out);
                out.push_str(": ");
                dump(v, depth + 1, out);
            }
            pad(depth, out);
            out.push('}');
        }
    }
}

fn dump_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Decodes a model's answer the way BFCL's `default_decode_ast_prompting` does for the Python
/// format: a list of calls `[f(a=1, b='x'), m.g(c=[1, 2])]` (or one bare call) → calls with their
/// keyword arguments (positional arguments are dropped, as BFCL's `resolve_ast_call` does).
///
/// # Errors
/// The text is not a Python list of calls (BFCL: a decode error).
pub fn decode_python_calls(text: &str) -> Result<Vec<Call>, DecodeError> {
    decode(text).map_err(|message| DecodeError { message })
}

/// A model's answer that is not a Python list of calls: what the parser met, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    /// What the parser met and at which character.
    pub message: String,
}

fn decode(text: &str) -> Result<Vec<Call>, String> {
    let stripped = text.trim_matches(|c| c == '`' || c == '\n' || c == ' ');
    let mut s = String::new();
    if !stripped.starts_with('[') {
        s.push('[');
    }
    s.push_str(stripped);
    if !stripped.ends_with(']') {
        s.push(']');
    }
    let cleaned = s.trim().trim_matches('\'');
    let mut p = Py::new(cleaned);
    let expr = p.expr(0)?;
    p.skip_ws();
    if p.pos < p.src.len() {
        return Err(format!("unexpected text at {}: {}", p.pos, p.rest(30)));
    }
    match expr {
        Expr::Call(name, kwargs, _) => Ok(vec![to_call(name, kwargs)]),
        Expr::List(items) | Expr::Tuple(items) => items
            .into_iter()
            .map(|e| match e {
                Expr::Call(name, kwargs, _) => Ok(to_call(name, kwargs)),
                other => Err(format!("not a function call: {}", other.text())),
            })
            .collect(),
        other => Err(format!("not a list of calls: {}", other.text())),
    }
}

fn to_call(name: String, kwargs: Vec<(String, Expr)>) -> Call {
    let args: Map<String, Value> = kwargs.into_iter().map(|(k, v)| (k, v.value())).collect();
    Call::new(name, Value::Object(args))
}

/// A parsed Python expression (the subset model answers use).
#[derive(Debug, Clone)]
enum Expr {
    Str(String),
    Int(i128),
    Float(f64),
    Bool(bool),
    None,
    Ellipsis,
    Name(String),
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// A call: dotted name, keyword arguments (positional ones are dropped) and source text.
    Call(String, Vec<(String, Expr)>, String),
    /// Source text kept as a string (BFCL: `ast.unparse`), e.g. a subscript.
    Opaque(String),
}

impl Expr {
    /// The value BFCL's `resolve_ast_by_type` gives it.
    fn value(self) -> Value {
        match self {
            Expr::Str(s) | Expr::Name(s) | Expr::Opaque(s) => Value::String(s),
            Expr::Int(i) => i64::try_from(i).map_or_else(
                |_| Number::from_f64(i as f64).map_or(Value::Null, Value::Number),
                |n| Value::Number(n.into()),
            ),
            Expr::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
            Expr::Bool(b) => Value::Bool(b),
            Expr::None => Value::Null,
            Expr::Ellipsis => Value::String("...".into()),
            Expr::List(v) | Expr::Tuple(v) => {
                Value::Array(v.into_iter().map(Expr::value).collect())
            }
            Expr::Dict(kv) => Value::Object(
                kv.into_iter()
                    .map(|(k, v)| {
                        let key = match k.value() {
                            Value::String(s) => s,
                            other => other.to_string(),
                        };
                        (key, v.value())
                    })
                    .collect(),
            ),
            // BFCL: a nested call without keywords is its source text
            Expr::Call(_, kwargs, src) if kwargs.is_empty() => Value::String(src),
            Expr::Call(name, kwargs, _) => {
                let args: Map<String, Value> =
                    kwargs.into_iter().map(|(k, v)| (k, v.value())).collect();
                let mut m = Map::new();
                m.insert(name, Value::Object(args));
                Value::Object(m)
            }
        }
    }

    fn text(&self) -> String {
        match self {
            Expr::Name(s) | Expr::Opaque(s) => s.clone(),
            other => other.clone().value().to_string(),
        }
    }
}

/// A small recursive-descent parser for Python expressions.
struct Py<'a> {
    src: &'a str,
    pos: usize,
    depth: usize,
}

const MAX_DEPTH: usize = 64;

impl<'a> Py<'a> {
    fn new(src: &'a str) -> Self {
        Py {
            src,
            pos: 0,
            depth: 0,
        }
    }

    fn rest(&self, n: usize) -> String {
        self.src
            .get(self.pos..)
            .unwrap_or("")
            .chars()
            .take(n)
            .collect()
    }

    fn peek(&self) -> Option<char> {
        self.src.get(self.pos..).and_then(|s| s.chars().next())
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() || c == '\\' {
                self.bump();
            } else if c == '#' {
                while let Some(c) = self.bump() {
                    if c == '\n' {
                        break;
                    }
                }
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.src.get(self.pos..).is_some_and(|r| r.starts_with(s)) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at {}: {:?}", self.pos, self.rest(30)))
    }

    /// Binary expressions by precedence: 0 = `+ -`, 1 = `* / // %`, 2 = `**`, 3 = unary.
    fn expr(&mut self, level: u8) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("nested too deeply");
        }
        let r = self.expr_inner(level);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, level: u8) -> Result<Expr, String> {
        match level {
            0 | 1 => {
                let mut left = self.expr(level + 1)?;
                loop {
                    self.skip_ws();
                    let ops: &[&str] = if level == 0 {
                        &["+", "-"]
                    } else {
                        &["//", "*", "/", "%"]
                    };
                    let Some(op) = ops.iter().find(|op| {
                        self.src.get(self.pos..).is_some_and(|r| {
                            r.starts_with(**op) && !(**op == "*" && r.starts_with("**"))
                        })
                    }) else {
                        return Ok(left);
                    };
                    self.pos += op.len();
                    let right = self.expr(level + 1)?;
                    left = arith(op, left, right)
                        .ok_or_else(|| format!("unsupported operation {op} at {}", self.pos))?;
                }
            }
            2 => {
                let base = self.expr(3)?;
                if self.eat("**") {
                    let exp = self.expr(3)?;
                    return arith("**", base, exp)
                        .ok_or_else(|| format!("unsupported operation ** at {}", self.pos));
                }
                Ok(base)
            }
            _ => {
                self.skip_ws();
                if self.eat("-") {
                    // BFCL: `-operand.value` (only for constants)
                    return match self.expr(3)? {
                        Expr::Int(i) => Ok(Expr::Int(-i)),
                        Expr::Float(f) => Ok(Expr::Float(-f)),
                        _ => self.err("unsupported unary minus"),
                    };
                }
                if self.eat("+") {
                    return self.expr(3);
                }
                self.postfix()
            }
        }
    }

    /// An atom with its calls, attributes and subscripts.
    fn postfix(&mut self) -> Result<Expr, String> {
        let start = self.pos;
        let mut e = self.atom()?;
        loop {
            self.skip_ws();
            match self.peek() {
                Some('.') if matches!(e, Expr::Name(_)) => {
                    self.bump();
                    self.skip_ws();
                    let attr = self
                        .ident()
                        .ok_or_else(|| format!("attribute at {}", self.pos))?;
                    if let Expr::Name(n) = e {
                        e = Expr::Name(format!("{n}.{attr}"));
                    }
                }
                Some('(') => {
                    self.bump();
                    let name = match &e {
                        Expr::Name(n) => n.clone(),
                        _ => return self.err("call of a non-name"),
                    };
                    let mut kwargs = Vec::new();
                    loop {
                        if self.eat(")") {
                            break;
                        }
                        self.skip_ws();
                        let save = self.pos;
                        let kw = self.ident();
                        if let Some(k) = kw.filter(|_| {
                            self.skip_ws();
                            self.src
                                .get(self.pos..)
                                .is_some_and(|r| r.starts_with('=') && !r.starts_with("=="))
                        }) {
                            self.pos += 1;
                            let v = self.expr(0)?;
                            kwargs.push((k, v));
                        } else {
                            self.pos = save;
                            if self.eat("**") || self.eat("*") {
                                // unpacking: kept out, like a positional argument
                            }
                            self.expr(0)?;
                        }
                        if self.eat(",") {
                            continue;
                        }
                        if self.eat(")") {
                            break;
                        }
                        return self.err("expected , or ) in a call");
                    }
                    let src = self
                        .src
                        .get(start..self.pos)
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    e = Expr::Call(name, kwargs, src);
                }
                Some('[') => {
                    // a subscript: BFCL keeps its source text
                    self.bump();
                    self.expr(0)?;
                    if !self.eat("]") {
                        return self.err("expected ]");
                    }
                    e = Expr::Opaque(self.src.get(start..self.pos).unwrap_or("").to_string());
                }
                _ => return Ok(e),
            }
        }
    }

    fn ident(&mut self) -> Option<String> {
        let c = self.peek()?;
        if !(c.is_alphabetic() || c == '_') {
            return None;
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '_' {
                self.bump();
            } else {
                break;
            }
        }
        self.src.get(start..self.pos).map(str::to_string)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        self.skip_ws();
        let Some(c) = self.peek() else {
            return self.err("unexpected end");
        };
        match c {
            '[' => {
                self.bump();
                Ok(Expr::List(self.items("]")?))
            }
            '(' => {
                self.bump();
                let save = self.pos;
                if self.eat(")") {
                    return Ok(Expr::Tuple(Vec::new()));
                }
                self.pos = save;
                let first = self.expr(0)?;
                if self.eat(")") {
                    return Ok(first);
                }
                if !self.eat(",") {
                    return self.err("expected , or ) in a tuple");
                }
                let mut items = vec![first];
                items.extend(self.items(")")?);
                Ok(Expr::Tuple(items))
            }
            '{' => {
                self.bump();
                let mut kv = Vec::new();
                let mut set = Vec::new();
                loop {
                    if self.eat("}") {
                        break;
                    }
                    let k = self.expr(0)?;
                    if self.eat(":") {
                        let v = self.expr(0)?;
                        kv.push((k, v));
                    } else {
                        set.push(k);
                    }
                    if self.eat(",") {
                        continue;
                    }
                    if self.eat("}") {
                        break;
                    }
                    return self.err("expected , or } in a dict");
                }
                if !set.is_empty() {
                    return if kv.is_empty() {
                        Ok(Expr::List(set))
                    } else {
                        self.err("mixed set and dict")
                    };
                }
                Ok(Expr::Dict(kv))
            }
            '.' if self
                .src
                .get(self.pos..)
                .is_some_and(|r| r.starts_with("...")) =>
            {
                self.pos += 3;
                Ok(Expr::Ellipsis)
            }
            '"' | '\'' => self.strings(),
            c if c.is_ascii_digit() || c == '.' => self.number(),
            c if c.is_alphabetic() || c == '_' => {
                let save = self.pos;
                let id = self.ident().unwrap_or_default();
                // string prefixes: r"", b'', f"", u"", rb"" …
                if id.len() <= 2
                    && id.chars().all(|c| "rRbBuUfF".contains(c))
                    && matches!(self.peek(), Some('"' | '\''))
                {
                    self.pos = save;
                    return self.strings();
                }
                Ok(match id.as_str() {
                    "True" => Expr::Bool(true),
                    "False" => Expr::Bool(false),
                    "None" => Expr::None,
                    _ => Expr::Name(id),
                })
            }
            _ => self.err("unexpected character"),
        }
    }

    fn items(&mut self, close: &str) -> Result<Vec<Expr>, String> {
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(items);
            }
            items.push(self.expr(0)?);
            if self.eat(",") {
                continue;
            }
            if self.eat(close) {
                return Ok(items);
            }
            return self.err(&format!("expected , or {close}"));
        }
    }

    /// One or more adjacent string literals (Python concatenates them).
    fn strings(&mut self) -> Result<Expr, String> {
        let mut out = String::new();
        loop {
            self.skip_ws();
            let save = self.pos;
            let mut raw = false;
            while let Some(c) = self.peek() {
                if "rRbBuUfF".contains(c) {
                    raw |= c == 'r' || c == 'R';
                    self.bump();
                } else {
                    break;
                }
            }
            let Some(q) = self.peek().filter(|c| *c == '"' || *c == '\'') else {
                self.pos = save;
                break;
            };
            let triple: String = std::iter::repeat_n(q, 3).collect();
            let is_triple = self
                .src
                .get(self.pos..)
                .is_some_and(|r| r.starts_with(&triple));
            self.pos += if is_triple { 3 } else { 1 };
            loop {
                if is_triple {
                    if self
                        .src
                        .get(self.pos..)
                        .is_some_and(|r| r.starts_with(&triple))
                    {
                        self.pos += 3;
                        break;
                    }
                } else if self.peek() == Some(q) {
                    self.bump();
                    break;
                }
                let Some(c) = self.bump() else {
                    return self.err("unterminated string");
                };
                if c == '\n' && !is_triple {
                    return self.err("unterminated string");
                }
                if c == '\\' && !raw {
                    let Some(e) = self.bump() else {
                        return self.err("unterminated string");
                    };
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '0' => out.push('\0'),
                        '\n' => {}
                        'x' | 'u' | 'U' => {
                            let n = match e {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let hex: String = (0..n).filter_map(|_| self.bump()).collect();
                            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                                Some(ch) => out.push(ch),
                                None => return self.err("bad escape"),
                            }
                        }
                        '\\' | '\'' | '"' => out.push(e),
                        other => {
                            out.push('\\');
                            out.push(other);
                        }
                    }
                } else {
                    out.push(c);
                }
            }
        }
        Ok(Expr::Str(out))
    }

    fn number(&mut self) -> Result<Expr, String> {
        let start = self.pos;
        let lower = self.src.get(self.pos..).unwrap_or("").to_ascii_lowercase();
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
            if lower.starts_with(prefix) {
                self.pos += 2;
                let digits_start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.bump();
                }
                let digits = self
                    .src
                    .get(digits_start..self.pos)
                    .unwrap_or("")
                    .replace('_', "");
                return i128::from_str_radix(&digits, radix)
                    .map(Expr::Int)
                    .or_else(|_| self.err("bad number"));
            }
        }
        let mut float = false;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || c == '_' {
                self.bump();
            } else if c == '.' && !float {
                float = true;
                self.bump();
            } else if c == 'e' || c == 'E' {
                float = true;
                self.bump();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.bump();
                }
            } else {
                break;
            }
        }
        let text = self.src.get(start..self.pos).unwrap_or("").replace('_', "");
        if float {
            text.parse::<f64>()
                .map(Expr::Float)
                .or_else(|_| self.err("bad number"))
        } else {
            text.parse::<i128>()
                .map(Expr::Int)
                .or_else(|_| self.err("bad number"))
        }
    }
}

/// Constant folding of arithmetic (BFCL evaluates `BinOp`s).
fn arith(op: &str, a: Expr, b: Expr) -> Option<Expr> {
    match (a, b) {
        (Expr::Str(x), Expr::Str(y)) if op == "+" => Some(Expr::Str(x + &y)),
        (Expr::Int(x), Expr::Int(y)) => match op {
            "+" => x.checked_add(y).map(Expr::Int),
            "-" => x.checked_sub(y).map(Expr::Int),
            "*" => x.checked_mul(y).map(Expr::Int),
            "//" => (y != 0).then(|| Expr::Int(x.div_euclid(y))),
            "%" => (y != 0).then(|| Expr::Int(x.rem_euclid(y))),
            "/" => (y != 0).then(|| Expr::Float(x as f64 / y as f64)),
            "**" => u32::try_from(y)
                .ok()
                .and_then(|e| x.checked_pow(e))
                .map(Expr::Int)
                .or_else(|| Some(Expr::Float((x as f64).powf(y as f64)))),
            _ => None,
        },
        (a, b) => {
            let f = |e: &Expr| match e {
                Expr::Int(i) => Some(*i as f64),
                Expr::Float(f) => Some(*f),
                _ => None,
            };
            let (x, y) = (f(&a)?, f(&b)?);
            Some(Expr::Float(match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" if y != 0.0 => x / y,
                "//" if y != 0.0 => (x / y).floor(),
                "%" if y != 0.0 => x.rem_euclid(y),
                "**" => x.powf(y),
                _ => return None,
            }))
        }
    }
}

/// Runs `task` the naive way with `provider` as a plain chat model (see the module docs).
pub async fn solve(provider: &dyn Provider, task: &PreparedTask) -> Attempt {
    let messages = vec![
        Message::system(bfcl_system_prompt(&task.task.functions)),
        Message::user(task.task.query.clone()),
    ];
    let turn = Turn {
        messages: &messages,
        tools: &[],
        ranking: None,
    };
    let reply = match provider.complete(turn).await {
        Ok(r) => r,
        Err(e) => {
            return Attempt {
                round_trips: 1,
                error: Some(e.to_string()),
                ..Attempt::default()
            };
        }
    };
    let text = reply.text.clone().unwrap_or_default();
    let (calls, decode) = match decode_python_calls(&text) {
        Ok(calls) => (calls, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let mut envelopes = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        let call = ToolCall::new(format!("naive_{i}"), c.name.clone(), c.arguments.clone());
        let opts = CallOptions {
            strict: true,
            ..CallOptions::default()
        };
        envelopes.push(task.runtime.invoke(call, &opts).await.to_json());
    }
    let mut output = serde_json::Map::new();
    output.insert("model_output".into(), Value::String(text));
    if let Some(e) = decode {
        output.insert(
            "decode_error".into(),
            Value::String(format!("not a Python list of calls (BFCL: no call): {e}")),
        );
    }
    let usage = reply.usage.unwrap_or_default();
    Attempt {
        calls,
        output: serde_json::to_string_pretty(&Value::Object(output)).unwrap_or_default(),
        envelopes,
        round_trips: 1,
        prompt_tokens: usage.input_tokens,
        completion_tokens: usage.output_tokens,
        error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Vec<Call> {
        decode_python_calls(text).unwrap()
    }

    #[test]
    fn decodes_bfcl_python_calls() {
        let calls = one("[calculate_triangle_area(base=10, height=5, unit='units')]");
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "calculate_triangle_area");
        assert_eq!(
            calls[0].arguments,
            json!({"base": 10, "height": 5, "unit": "units"})
        );
        // no brackets, code fences, dotted names, several calls
        let calls = one(
            "```\nmath.hypot(x=4, y=-5.5), spotify.play(artist=\"Taylor Swift\", duration=20)\n```",
        );
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "math.hypot");
        assert_eq!(calls[0].arguments, json!({"x": 4, "y": -5.5}));
        assert_eq!(calls[1].arguments["artist"], "Taylor Swift");
    }

    #[test]
    fn values_follow_resolve_ast_by_type() {
        let calls = one(
            "[f(a=[1, 2.5, 'x'], b={'k': True, 'n': None}, c=(1, 2), d=some_name, e=2*3, g=1e3, h=r'\\d', i='a' 'b', j=g(1), k=h(x=1))]",
        );
        let a = &calls[0].arguments;
        assert_eq!(a["a"], json!([1, 2.5, "x"]));
        assert_eq!(a["b"], json!({"k": true, "n": null}));
        assert_eq!(a["c"], json!([1, 2]));
        assert_eq!(a["d"], "some_name");
        assert_eq!(a["e"], 6);
        assert_eq!(a["g"], 1000.0);
        assert_eq!(a["h"], "\\d");
        assert_eq!(a["i"], "ab");
        assert_eq!(a["j"], "g(1)");
        assert_eq!(a["k"], json!({"h": {"x": 1}}));
    }

    #[test]
    fn positional_arguments_are_dropped_like_bfcl() {
        assert_eq!(one("[f(3, y=4)]")[0].arguments, json!({"y": 4}));
    }

    #[test]
    fn prose_and_json_do_not_decode() {
        assert!(decode_python_calls("Sure! The area of the triangle is 25.").is_err());
        assert!(decode_python_calls(r#"{"name": "f", "arguments": {"a": 1}}"#).is_err());
        assert!(decode_python_calls("[f(a=1), 3]").is_err());
        assert!(decode_python_calls("[f(a='unterminated)]").is_err());
        assert!(decode_python_calls("").is_ok_and(|c| c.is_empty()));
        // deep nesting is an error, not a stack overflow
        let deep = format!("[f(a={}1{})]", "[".repeat(500), "]".repeat(500));
        assert!(decode_python_calls(&deep).is_err());
    }

    #[test]
    fn the_prompt_is_bfcls_default() {
        let f = json!([{"name": "f", "description": "Été", "parameters": {"type": "dict", "properties": {}}}]);
        let p = bfcl_system_prompt(f.as_array().unwrap());
        assert!(p.starts_with("You are an expert in composing functions.You are given a question"));
        assert!(p.contains("[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  You SHOULD NOT"));
        assert!(p.ends_with(
            "in json format that you can invoke.\n[\n    {\n        \"name\": \"f\",\n        \"description\": \"\\u00c9t\\u00e9\",\n        \"parameters\": {\n            \"type\": \"dict\",\n            \"properties\": {}\n        }\n    }\n]\n"
        ));
    }
}
