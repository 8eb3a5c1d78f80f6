//! `calculate`: a real arithmetic expression parser (recursive descent), never an `eval`.

use toolwright::{ToolError, tool};

/// How deep parentheses and function calls may nest.
const MAX_DEPTH: usize = 64;

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum CalcError {
    /// The text is not a valid expression; the message says where.
    Syntax(String),
    /// A division (or modulo) by zero.
    DivisionByZero,
    /// A function was applied outside its domain (sqrt of a negative, log of zero...).
    Domain(String),
    /// The expression nests too deeply.
    TooDeep,
    /// The result (or a step on the way to it) is not a finite number: it overflows `f64`
    /// (beyond about ±1.8e308) or is undefined (`inf - inf`, `0 * inf`).
    NotFinite,
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    depth: usize,
}

/// Evaluates `+ - * / % ^`, parentheses, unary minus, `pi`, `e` and the functions
/// `sqrt sin cos tan asin acos atan ln log log10 log2 exp abs floor ceil round`.
///
/// ```
/// assert_eq!(toolwright_demo::calc::evaluate("2*(3+4)"), Ok(14.0));
/// assert_eq!(toolwright_demo::calc::evaluate("2^3^2"), Ok(512.0));
/// assert!(toolwright_demo::calc::evaluate("1/0").is_err());
/// ```
///
/// # Errors
/// [`CalcError`] for syntax errors, division by zero, domain errors and excessive nesting.
pub fn evaluate(expr: &str) -> Result<f64, CalcError> {
    let mut p = Parser {
        src: expr.as_bytes(),
        pos: 0,
        depth: 0,
    };
    let v = p.expr()?;
    p.skip_ws();
    if p.pos < p.src.len() {
        return Err(CalcError::Syntax(format!(
            "unexpected `{}` at position {}",
            p.rest_char(),
            p.pos + 1
        )));
    }
    if v.is_finite() {
        Ok(v)
    } else {
        Err(CalcError::NotFinite)
    }
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.src.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.src.get(self.pos).copied()
    }
    fn rest_char(&self) -> char {
        std::str::from_utf8(self.src.get(self.pos..).unwrap_or_default())
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or('?')
    }
    fn enter(&mut self) -> Result<(), CalcError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(CalcError::TooDeep)
        } else {
            Ok(())
        }
    }
    fn expr(&mut self) -> Result<f64, CalcError> {
        self.enter()?;
        let mut v = self.term()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.term()?;
            v = if op == b'+' { v + r } else { v - r };
        }
        self.depth -= 1;
        Ok(v)
    }
    fn term(&mut self) -> Result<f64, CalcError> {
        let mut v = self.unary()?;
        loop {
            match self.peek() {
                Some(op @ (b'*' | b'/' | b'%')) => {
                    self.pos += 1;
                    let r = self.unary()?;
                    v = match op {
                        b'*' => v * r,
                        _ if r == 0.0 => return Err(CalcError::DivisionByZero),
                        b'/' => v / r,
                        _ => v % r,
                    };
                }
                // Implicit multiplication: 2(3+4), 2pi.
                Some(b'(') => {
                    let r = self.unary()?;
                    v *= r;
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    let r = self.unary()?;
                    v *= r;
                }
                _ => return Ok(v),
            }
        }
    }
    fn unary(&mut self) -> Result<f64, CalcError> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                self.enter()?;
                let v = -self.unary()?;
                self.depth -= 1;
                Ok(v)
            }
            Some(b'+') => {
                self.pos += 1;
                self.enter()?;
                let v = self.unary()?;
                self.depth -= 1;
                Ok(v)
            }
            _ => self.power(),
        }
    }
    fn power(&mut self) -> Result<f64, CalcError> {
        let base = self.atom()?;
        if self.peek() == Some(b'^') || self.src.get(self.pos..self.pos + 2) == Some(b"**") {
            self.pos += if self.src.get(self.pos) == Some(&b'^') {
                1
            } else {
                2
            };
            self.enter()?;
            let exp = self.unary()?; // right associative, allows 2^-1
            self.depth -= 1;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }
    fn atom(&mut self) -> Result<f64, CalcError> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err(CalcError::Syntax(format!(
                        "missing `)` at position {}",
                        self.pos + 1
                    )));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(c) if c.is_ascii_alphabetic() => self.name(),
            Some(_) => Err(CalcError::Syntax(format!(
                "unexpected `{}` at position {}",
                self.rest_char(),
                self.pos + 1
            ))),
            None => Err(CalcError::Syntax("the expression ended too early".into())),
        }
    }
    fn number(&mut self) -> Result<f64, CalcError> {
        let start = self.pos;
        while self
            .src
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_digit() || *c == b'.' || *c == b'_')
        {
            self.pos += 1;
        }
        if matches!(self.src.get(self.pos), Some(b'e' | b'E'))
            && self
                .src
                .get(self.pos + 1)
                .is_some_and(|c| c.is_ascii_digit() || *c == b'-' || *c == b'+')
        {
            self.pos += 2;
            while self.src.get(self.pos).is_some_and(u8::is_ascii_digit) {
                self.pos += 1;
            }
        }
        let text: String = std::str::from_utf8(self.src.get(start..self.pos).unwrap_or_default())
            .unwrap_or_default()
            .replace('_', "");
        text.parse::<f64>()
            .map_err(|_| CalcError::Syntax(format!("`{text}` is not a number")))
    }
    fn name(&mut self) -> Result<f64, CalcError> {
        let start = self.pos;
        while self
            .src
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            self.pos += 1;
        }
        let name = std::str::from_utf8(self.src.get(start..self.pos).unwrap_or_default())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match name.as_str() {
            "pi" => return Ok(std::f64::consts::PI),
            "e" => return Ok(std::f64::consts::E),
            "tau" => return Ok(std::f64::consts::TAU),
            _ => {}
        }
        if self.peek() != Some(b'(') {
            return Err(CalcError::Syntax(format!("unknown name `{name}`")));
        }
        let x = self.atom()?;
        let domain = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(CalcError::Domain(format!("{what} is undefined for {x}")))
            }
        };
        Ok(match name.as_str() {
            "sqrt" => {
                domain(x >= 0.0, "sqrt")?;
                x.sqrt()
            }
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "asin" => {
                domain((-1.0..=1.0).contains(&x), "asin")?;
                x.asin()
            }
            "acos" => {
                domain((-1.0..=1.0).contains(&x), "acos")?;
                x.acos()
            }
            "atan" => x.atan(),
            "ln" | "log" => {
                domain(x > 0.0, "log")?;
                x.ln()
            }
            "log10" => {
                domain(x > 0.0, "log10")?;
                x.log10()
            }
            "log2" => {
                domain(x > 0.0, "log2")?;
                x.log2()
            }
            "exp" => x.exp(),
            "abs" => x.abs(),
            "floor" => x.floor(),
            "ceil" => x.ceil(),
            "round" => x.round(),
            other => return Err(CalcError::Syntax(format!("unknown function `{other}`"))),
        })
    }
}

/// A JSON number: an integer when the value is integral and exactly representable as one,
/// otherwise the f64 itself, serialized by serde_json as the shortest text that reads back to the
/// same f64 (no rounding to a fixed number of decimals, which turned `1e-13` into `0` and
/// overflowed `1e300` into `null`).
///
/// # Errors
/// [`CalcError::NotFinite`] for infinities and NaN, which JSON cannot carry.
fn number_value(v: f64) -> Result<serde_json::Value, CalcError> {
    // Below 2^53 every integral f64 is an exact i64; 9e15 stays safely under it.
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        return Ok(serde_json::Value::from(v as i64));
    }
    serde_json::Number::from_f64(v)
        .map(serde_json::Value::Number)
        .ok_or(CalcError::NotFinite)
}

/// Evaluate an arithmetic expression exactly, with + - * / % ^, parentheses and functions.
///
/// Use this tool when the user asks to compute something ("what is 17 times 23?", "sqrt(2)*3")
/// instead of doing the arithmetic yourself. Functions: sqrt, sin, cos, tan, asin, acos, atan,
/// ln, log10, log2, exp, abs, floor, ceil, round; constants pi and e. The result is the number.
///
/// # Arguments
/// * `expression` - The expression, e.g. "2*(3+4)" or "sqrt(16) + 2^10"
#[tool(
    display_label = "Calculating",
    timeout_ms = 1000,
    side_effects = "none",
    category = "math",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 5,
    examples = [r#"{"expression": "17 * 23"}"#],
    // The name `calculate` is part of the demo's published contract (issue 2); the verb alone is
    // unambiguous in this toolset.
    lint_allow = ["TW002"]
)]
pub fn calculate(
    #[arg(min_length = 1, max_length = 1000)] expression: String,
) -> Result<toolwright::Outcome, ToolError> {
    let shown: String = expression.chars().take(100).collect();
    match evaluate(&expression).and_then(number_value) {
        Ok(data) => Ok(
            toolwright::Outcome::success(data.clone()).with_message(format!("{shown} = {data}"))
        ),
        Err(CalcError::DivisionByZero) => Err(ToolError::validation(
            format!("Division by zero in `{shown}`."),
            "Change the expression so that no divisor is zero, or tell the user the result is undefined.",
        )),
        Err(CalcError::Domain(m)) => Err(ToolError::validation(
            format!("Math error in `{shown}`: {m}."),
            "Use values inside the function's domain.",
        )),
        Err(CalcError::NotFinite) => Err(ToolError::validation(
            format!(
                "The result of `{shown}` is not a finite number: it overflows (its magnitude exceeds about 1.8e308) or is undefined (such as inf - inf)."
            ),
            "Keep every intermediate value within ±1.8e308 (e.g. work with logarithms: ln(x) instead of x), or tell the user the result is too large to compute.",
        )),
        Err(CalcError::TooDeep) => Err(ToolError::validation(
            format!("`{shown}` nests too deeply (over {MAX_DEPTH} levels)."),
            "Simplify the expression.",
        )),
        Err(CalcError::Syntax(m)) => Err(ToolError::validation(
            format!("`{shown}` is not a valid expression: {m}."),
            "Write plain arithmetic such as `17 * 23` or `sqrt(2) / 3`; use * for multiplication and ^ for powers.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        assert_eq!(evaluate("2*(3+4)"), Ok(14.0));
        assert_eq!(evaluate("17 * 23"), Ok(391.0));
        assert_eq!(evaluate("-2^2"), Ok(-4.0));
        assert_eq!(evaluate("2^-1"), Ok(0.5));
        assert_eq!(evaluate("10 % 4"), Ok(2.0));
        assert_eq!(evaluate("sqrt(16) + abs(-2)"), Ok(6.0));
        assert_eq!(evaluate("2(3)"), Ok(6.0));
        assert!((evaluate("cos(0) + ln(e)").unwrap() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn errors() {
        assert_eq!(evaluate("1/0"), Err(CalcError::DivisionByZero));
        assert_eq!(evaluate("5 % 0"), Err(CalcError::DivisionByZero));
        assert!(matches!(evaluate("sqrt(-1)"), Err(CalcError::Domain(_))));
        assert!(matches!(evaluate("2 +"), Err(CalcError::Syntax(_))));
        assert!(matches!(evaluate("(1"), Err(CalcError::Syntax(_))));
        assert!(matches!(evaluate("import os"), Err(CalcError::Syntax(_))));
        assert!(matches!(evaluate("2 $ 3"), Err(CalcError::Syntax(_))));
        assert_eq!(evaluate(&"(".repeat(10_000)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"-".repeat(10_000)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"+".repeat(10_000)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"2^".repeat(10_000)), Err(CalcError::TooDeep));
        assert_eq!(evaluate("1e309"), Err(CalcError::NotFinite));
        assert_eq!(evaluate("exp(710)"), Err(CalcError::NotFinite));
        assert_eq!(evaluate("1e308*10 - 1e308*10"), Err(CalcError::NotFinite));
    }

    #[test]
    fn number_values_keep_every_digit() {
        assert_eq!(number_value(391.0), Ok(serde_json::json!(391)));
        assert_eq!(number_value(1e300), Ok(serde_json::json!(1e300)));
        assert_eq!(number_value(1e-13), Ok(serde_json::json!(1e-13)));
        assert_eq!(
            number_value(1e15 + 0.5),
            Ok(serde_json::json!(1_000_000_000_000_000.5))
        );
        assert_eq!(number_value(f64::INFINITY), Err(CalcError::NotFinite));
        assert_eq!(number_value(f64::NAN), Err(CalcError::NotFinite));
    }
}
