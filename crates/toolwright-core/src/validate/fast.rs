//! A quick check for the valid case of the schemas tools usually advertise (what schemars
//! derives from a Rust type: objects of typed properties with bounds, lengths, string enums and
//! local `$ref`s), run before the compiled `jsonschema` validator.
//!
//! It answers only what it knows for certain: [`Verdict::Valid`] when the value satisfies every
//! keyword of the schema, [`Verdict::Invalid`] when it breaks one it models exactly, and
//! [`Verdict::Unknown`] for anything else (a keyword it does not model, a `$ref` that is not a
//! local pointer, a number it cannot compare exactly). Only `Valid` skips the full validator;
//! everything else goes through `jsonschema`, which also writes the report of every field
//! error. So the set of accepted arguments is the full validator's: this check can only make
//! the common, valid call cheaper (it allocates nothing).

use serde_json::{Map, Number, Value};

/// How deep `$ref`s and nested schemas are followed when the plan is built; deeper (or
/// recursive) parts are [`Node::Unknown`].
const MAX_DEPTH: usize = 24;
/// The draft the validator compiles with; a schema that names another is not planned.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// What the quick check knows about a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Satisfies every keyword of the schema.
    Valid,
    /// Breaks a keyword the check models exactly.
    Invalid,
    /// Not decided here: the full validator decides.
    Unknown,
}

use Verdict::{Invalid, Unknown, Valid};

impl Verdict {
    /// Both hold (keywords of one schema).
    fn and(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Invalid, _) | (_, Invalid) => Invalid,
            (Valid, Valid) => Valid,
            _ => Unknown,
        }
    }

    fn of(ok: bool) -> Verdict {
        if ok { Valid } else { Invalid }
    }
}

// Instance types, as bits.
const T_NULL: u8 = 1;
const T_BOOL: u8 = 2;
const T_OBJECT: u8 = 4;
const T_ARRAY: u8 = 8;
const T_NUMBER: u8 = 16;
const T_INTEGER: u8 = 32;
const T_STRING: u8 = 64;

/// One schema, planned.
#[derive(Debug)]
pub(crate) enum Node {
    /// `true` or `{}`: anything.
    Any,
    /// `false`: nothing.
    Nothing,
    /// Not modelled.
    Unknown,
    /// A scalar of one type with its bounds (most properties): checked without the general
    /// keyword walk.
    Leaf(Leaf),
    /// Keywords that all have to hold.
    Checks(Box<Checks>),
}

/// A scalar schema: one type (or that type or `null`), and the keywords of that type.
#[derive(Debug)]
pub(crate) struct Leaf {
    null_ok: bool,
    kind: LeafKind,
}

#[derive(Debug)]
enum LeafKind {
    Bool,
    Str {
        min_length: u64,
        max_length: u64,
        set: Option<Box<[String]>>,
    },
    /// Bounds as exact `f64`s (infinite when absent).
    Number {
        integer: bool,
        minimum: f64,
        maximum: f64,
        exclusive_minimum: f64,
        exclusive_maximum: f64,
    },
}

/// The modelled keywords of one schema object.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    /// The schema has a keyword the plan does not model: [`Verdict::Unknown`] whatever the value.
    partial: bool,
    types: Option<u8>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// `enum` / `const` made of strings only.
    strings: Option<Vec<String>>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
    /// (name, schema, required).
    properties: Vec<(String, Node, bool)>,
    /// Required names that are not among `properties` (looked up one by one).
    required_elsewhere: Vec<String>,
    /// Required names that are among `properties` (counted while they are checked).
    required_listed: usize,
    additional: Option<Node>,
    items: Option<Node>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    reference: Option<Node>,
    all_of: Vec<Node>,
    any_of: Vec<Node>,
    one_of: Vec<Node>,
    /// Which groups of keywords are present (set once planned): the check skips the others.
    has_string: bool,
    has_number: bool,
    has_combinators: bool,
}

/// Keywords that never constrain a value (annotations), or that are containers read through
/// `$ref` only.
const ANNOTATIONS: [&str; 10] = [
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$defs",
    "definitions",
];

/// The `format`s schemars writes for Rust numbers: the validator knows none of them, so they
/// are annotations.
const NUMBER_FORMATS: [&str; 14] = [
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64",
    "uint128", "uint", "float", "double",
];

/// The plan of `root`, or `None` when the root itself is not modelled (another draft, `$id`s).
pub(crate) fn plan(root: &Value) -> Option<Node> {
    if let Some(s) = root.get("$schema")
        && s.as_str() != Some(DRAFT_2020_12)
    {
        return None;
    }
    let planner = Planner {
        root,
        budget: std::cell::Cell::new(MAX_NODES),
        expanding: std::cell::RefCell::new(Vec::new()),
    };
    let node = planner.node(root, 0);
    match node {
        Node::Unknown => None,
        n => Some(n),
    }
}

struct Planner<'a> {
    root: &'a Value,
    /// Nodes still allowed: a schema whose `$ref`s fan out (a chain of definitions each used
    /// twice) is planned up to this size, the rest left to the validator.
    budget: std::cell::Cell<usize>,
    /// The `$ref`s being expanded: a recursive one is left to the validator.
    expanding: std::cell::RefCell<Vec<String>>,
}

/// At most this many nodes are planned for one schema.
const MAX_NODES: usize = 4096;

impl Planner<'_> {
    fn node(&self, schema: &Value, depth: usize) -> Node {
        let left = self.budget.get();
        if depth > MAX_DEPTH || left == 0 {
            return Node::Unknown;
        }
        self.budget.set(left - 1);
        match schema {
            Value::Bool(true) => Node::Any,
            Value::Bool(false) => Node::Nothing,
            Value::Object(map) if map.is_empty() => Node::Any,
            Value::Object(map) => self.checks(map, depth),
            _ => Node::Unknown,
        }
    }

    fn nodes(&self, v: &Value, depth: usize) -> Option<Vec<Node>> {
        let list = v.as_array()?;
        if list.is_empty() {
            return None;
        }
        Some(list.iter().map(|s| self.node(s, depth + 1)).collect())
    }

    fn checks(&self, map: &Map<String, Value>, depth: usize) -> Node {
        let mut c = Checks::default();
        let mut required: Vec<&str> = Vec::new();
        for (key, v) in map {
            let known = match key.as_str() {
                k if ANNOTATIONS.contains(&k) => true,
                "$schema" => depth == 0,
                "format" => v.as_str().is_some_and(|f| NUMBER_FORMATS.contains(&f)),
                "type" => types(v).map(|t| c.types = Some(t)).is_some(),
                "minLength" => v.as_u64().map(|n| c.min_length = Some(n)).is_some(),
                "maxLength" => v.as_u64().map(|n| c.max_length = Some(n)).is_some(),
                "minItems" => v.as_u64().map(|n| c.min_items = Some(n)).is_some(),
                "maxItems" => v.as_u64().map(|n| c.max_items = Some(n)).is_some(),
                "minimum" => exact(v).map(|n| c.minimum = Some(n)).is_some(),
                "maximum" => exact(v).map(|n| c.maximum = Some(n)).is_some(),
                "exclusiveMinimum" => exact(v).map(|n| c.exclusive_minimum = Some(n)).is_some(),
                "exclusiveMaximum" => exact(v).map(|n| c.exclusive_maximum = Some(n)).is_some(),
                "enum" => strings(v).map(|s| c.strings = Some(s)).is_some(),
                "const" => v
                    .as_str()
                    .map(|s| c.strings = Some(vec![s.to_string()]))
                    .is_some(),
                "required" => match v.as_array() {
                    Some(names) if names.iter().all(Value::is_string) => {
                        required = names.iter().filter_map(Value::as_str).collect();
                        true
                    }
                    _ => false,
                },
                "properties" => match v.as_object() {
                    Some(props) => {
                        c.properties = props
                            .iter()
                            .map(|(k, s)| (k.clone(), self.node(s, depth + 1), false))
                            .collect();
                        true
                    }
                    None => false,
                },
                "additionalProperties" => {
                    c.additional = Some(self.node(v, depth + 1));
                    true
                }
                "items" => {
                    c.items = Some(self.node(v, depth + 1));
                    true
                }
                "$ref" => match v.as_str().and_then(|r| Some((r, self.local(r)?))) {
                    Some((r, target)) if !self.expanding.borrow().iter().any(|e| e == r) => {
                        self.expanding.borrow_mut().push(r.to_string());
                        c.reference = Some(self.node(target, depth + 1));
                        self.expanding.borrow_mut().pop();
                        true
                    }
                    _ => false,
                },
                "allOf" => self.nodes(v, depth).map(|n| c.all_of = n).is_some(),
                "anyOf" => self.nodes(v, depth).map(|n| c.any_of = n).is_some(),
                "oneOf" => self.nodes(v, depth).map(|n| c.one_of = n).is_some(),
                _ => false,
            };
            if !known {
                c.partial = true;
            }
        }
        let mut seen = std::collections::HashSet::new();
        for name in required {
            if !seen.insert(name) {
                continue;
            }
            match c.properties.iter_mut().find(|(k, _, _)| k == name) {
                Some(p) => {
                    p.2 = true;
                    c.required_listed += 1;
                }
                None => c.required_elsewhere.push(name.to_string()),
            }
        }
        simplify(c)
    }

    /// The target of a local JSON pointer reference (`#/$defs/Name`).
    fn local(&self, r: &str) -> Option<&Value> {
        let pointer = r.strip_prefix('#')?;
        if pointer.contains('%') {
            return None;
        }
        self.root.pointer(pointer)
    }
}

/// The planned node of `c`, in its cheapest equivalent form: a schema that is only a `$ref`
/// is its target; a `oneOf` of string constants with no value in two branches is one set of
/// strings (the usual derived enum).
fn simplify(mut c: Checks) -> Node {
    if !c.partial
        && c.is_only_reference()
        && let Some(target) = c.reference.take()
    {
        return target;
    }
    if !c.partial && !c.one_of.is_empty() && c.one_of.len() > 1 {
        let mut set: Vec<String> = Vec::new();
        let mut disjoint = true;
        for branch in &c.one_of {
            match branch.string_set() {
                Some(values) => {
                    for v in values {
                        if set.contains(v) {
                            disjoint = false;
                        }
                        set.push(v.clone());
                    }
                }
                None => disjoint = false,
            }
        }
        if disjoint && c.strings.is_none() && c.types.is_none_or(|t| t & T_STRING != 0) {
            c.one_of.clear();
            c.types = Some(T_STRING);
            c.strings = Some(set);
        }
    }
    c.has_string = c.strings.is_some() || c.min_length.is_some() || c.max_length.is_some();
    c.has_number = c.minimum.is_some()
        || c.maximum.is_some()
        || c.exclusive_minimum.is_some()
        || c.exclusive_maximum.is_some();
    c.has_combinators = c.reference.is_some()
        || !c.all_of.is_empty()
        || !c.any_of.is_empty()
        || !c.one_of.is_empty();
    leaf(&mut c).unwrap_or_else(|| Node::Checks(Box::new(c)))
}

/// `c` as a [`Leaf`], when it is one.
fn leaf(c: &mut Checks) -> Option<Node> {
    let structural = c.partial
        || c.has_combinators
        || !c.properties.is_empty()
        || !c.required_elsewhere.is_empty()
        || c.required_listed != 0
        || c.additional.is_some()
        || c.items.is_some()
        || c.min_items.is_some()
        || c.max_items.is_some();
    if structural {
        return None;
    }
    let t = c.types?;
    // An enum of strings holds no `null`, whatever the type allows.
    let null_ok = t & T_NULL != 0 && c.strings.is_none();
    let kind = match t & !T_NULL {
        T_BOOL if c.strings.is_none() => LeafKind::Bool,
        T_STRING => LeafKind::Str {
            min_length: c.min_length.unwrap_or(0),
            max_length: c.max_length.unwrap_or(u64::MAX),
            set: c.strings.take().map(Vec::into_boxed_slice),
        },
        n if c.strings.is_none()
            && (n == T_NUMBER || n == T_INTEGER || n == T_NUMBER | T_INTEGER) =>
        {
            LeafKind::Number {
                integer: n == T_INTEGER,
                minimum: c.minimum.unwrap_or(f64::NEG_INFINITY),
                maximum: c.maximum.unwrap_or(f64::INFINITY),
                exclusive_minimum: c.exclusive_minimum.unwrap_or(f64::NEG_INFINITY),
                exclusive_maximum: c.exclusive_maximum.unwrap_or(f64::INFINITY),
            }
        }
        _ => return None,
    };
    Some(Node::Leaf(Leaf { null_ok, kind }))
}

impl Leaf {
    #[inline(always)]
    fn check(&self, v: &Value) -> Verdict {
        match (&self.kind, v) {
            (_, Value::Null) => Verdict::of(self.null_ok),
            (LeafKind::Bool, Value::Bool(_)) => Valid,
            (
                LeafKind::Str {
                    min_length,
                    max_length,
                    set,
                },
                Value::String(s),
            ) => {
                if let Some(set) = set
                    && !set.iter().any(|a| a == s)
                {
                    return Invalid;
                }
                // Lengths count code points (between a quarter of the bytes and all of them):
                // counted only when the byte length does not settle it.
                let bytes = s.len() as u64;
                if bytes <= *max_length && bytes >= min_length.saturating_mul(4) {
                    return Valid;
                }
                let n = s.chars().count() as u64;
                Verdict::of(n >= *min_length && n <= *max_length)
            }
            (
                LeafKind::Number {
                    integer,
                    minimum,
                    maximum,
                    exclusive_minimum,
                    exclusive_maximum,
                },
                Value::Number(n),
            ) => {
                if *integer && !(n.is_i64() || n.is_u64()) {
                    return type_matches(T_INTEGER, v);
                }
                let Some(x) = exact_number(n) else {
                    return Unknown;
                };
                Verdict::of(
                    x >= *minimum
                        && x <= *maximum
                        && x > *exclusive_minimum
                        && x < *exclusive_maximum,
                )
            }
            _ => Invalid,
        }
    }
}

impl Checks {
    /// Only a `$ref` (and annotations).
    fn is_only_reference(&self) -> bool {
        self.reference.is_some()
            && self.types.is_none()
            && self.min_length.is_none()
            && self.max_length.is_none()
            && self.strings.is_none()
            && self.minimum.is_none()
            && self.maximum.is_none()
            && self.exclusive_minimum.is_none()
            && self.exclusive_maximum.is_none()
            && self.properties.is_empty()
            && self.required_elsewhere.is_empty()
            && self.required_listed == 0
            && self.additional.is_none()
            && self.items.is_none()
            && self.min_items.is_none()
            && self.max_items.is_none()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.one_of.is_empty()
    }
}

impl Node {
    /// The strings this node accepts when it accepts exactly a set of strings (`const` or
    /// `enum` of strings, typed `string` or untyped, nothing else).
    fn string_set(&self) -> Option<&[String]> {
        let c = match self {
            Node::Leaf(Leaf {
                null_ok: false,
                kind:
                    LeafKind::Str {
                        min_length: 0,
                        max_length: u64::MAX,
                        set: Some(set),
                    },
            }) => return Some(set),
            Node::Checks(c) => c,
            _ => return None,
        };
        let only = !c.partial
            && c.types.is_none_or(|t| t & T_STRING != 0)
            && c.min_length.is_none()
            && c.max_length.is_none()
            && !c.has_number
            && c.properties.is_empty()
            && c.required_elsewhere.is_empty()
            && c.required_listed == 0
            && c.additional.is_none()
            && c.items.is_none()
            && c.min_items.is_none()
            && c.max_items.is_none()
            && !c.has_combinators;
        if only { c.strings.as_deref() } else { None }
    }
}

fn types(v: &Value) -> Option<u8> {
    let one = |t: &str| match t {
        "null" => Some(T_NULL),
        "boolean" => Some(T_BOOL),
        "object" => Some(T_OBJECT),
        "array" => Some(T_ARRAY),
        "number" => Some(T_NUMBER),
        "integer" => Some(T_INTEGER),
        "string" => Some(T_STRING),
        _ => None,
    };
    match v {
        Value::String(t) => one(t),
        Value::Array(ts) if !ts.is_empty() => ts
            .iter()
            .try_fold(0u8, |acc, t| Some(acc | one(t.as_str()?)?)),
        _ => None,
    }
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// Integers beyond this are not all exact as `f64`.
const EXACT: u64 = 1 << 53;

/// `n` as an `f64` that is exactly its value, when there is one.
fn exact_number(n: &Number) -> Option<f64> {
    if let Some(u) = n.as_u64() {
        return (u <= EXACT).then_some(u as f64);
    }
    if let Some(i) = n.as_i64() {
        return (i.unsigned_abs() <= EXACT).then_some(i as f64);
    }
    n.as_f64().filter(|f| f.is_finite())
}

fn exact(v: &Value) -> Option<f64> {
    exact_number(v.as_number()?)
}

impl Node {
    /// What the plan knows about `v`.
    ///
    /// Inlined where it is called: most nodes under an object are leaves, whose check is a few
    /// comparisons; the general checks (a call of their own) save and restore many registers.
    #[inline(always)]
    pub(crate) fn check(&self, v: &Value) -> Verdict {
        match self {
            Node::Any => Valid,
            Node::Nothing => Invalid,
            Node::Unknown => Unknown,
            Node::Leaf(l) => l.check(v),
            Node::Checks(c) => c.check(v),
        }
    }
}

impl Checks {
    #[inline(never)]
    fn check(&self, v: &Value) -> Verdict {
        // An unmodelled keyword may also change what a modelled one means (`patternProperties`
        // widens `additionalProperties`, `prefixItems` narrows `items`): no verdict at all.
        if self.partial {
            return Unknown;
        }
        let mut verdict = match self.types {
            Some(t) => type_matches(t, v),
            None => Valid,
        };
        if verdict == Invalid {
            return Invalid;
        }
        verdict = verdict.and(match v {
            Value::String(s) if self.has_string => self.check_string(s),
            // An enum of strings holds no other kind of value.
            _ if self.strings.is_some() && !v.is_string() => Invalid,
            Value::Number(n) if self.has_number => self.check_number(n),
            Value::Object(m) => self.check_object(m),
            Value::Array(a) => self.check_array(a),
            _ => Valid,
        });
        if verdict == Invalid || !self.has_combinators {
            return verdict;
        }
        if let Some(r) = &self.reference {
            verdict = verdict.and(r.check(v));
        }
        for n in &self.all_of {
            verdict = verdict.and(n.check(v));
        }
        if !self.any_of.is_empty() {
            verdict = verdict.and(any_of(&self.any_of, v));
        }
        if !self.one_of.is_empty() {
            verdict = verdict.and(one_of(&self.one_of, v));
        }
        verdict
    }

    fn check_string(&self, s: &str) -> Verdict {
        let mut ok = true;
        if let Some(allowed) = &self.strings {
            ok &= allowed.iter().any(|a| a == s);
        }
        if self.min_length.is_some() || self.max_length.is_some() {
            // Lengths count code points, as the validator does.
            let n = s.chars().count() as u64;
            ok &= self.min_length.is_none_or(|m| n >= m);
            ok &= self.max_length.is_none_or(|m| n <= m);
        }
        Verdict::of(ok)
    }

    fn check_number(&self, n: &Number) -> Verdict {
        let Some(x) = exact_number(n) else {
            return Unknown;
        };
        Verdict::of(
            self.minimum.is_none_or(|m| x >= m)
                && self.maximum.is_none_or(|m| x <= m)
                && self.exclusive_minimum.is_none_or(|m| x > m)
                && self.exclusive_maximum.is_none_or(|m| x < m),
        )
    }

    fn check_object(&self, m: &Map<String, Value>) -> Verdict {
        let mut verdict = Valid;
        let mut required_seen = 0usize;
        for (i, (k, v)) in m.iter().enumerate() {
            // Arguments usually come in the schema's order: the property at the same place is
            // tried first.
            let found = match self.properties.get(i) {
                Some(p) if p.0 == *k => Some(p),
                _ => self.properties.iter().find(|(name, _, _)| name == k),
            };
            match found {
                Some((_, schema, required)) => {
                    required_seen += usize::from(*required);
                    verdict = verdict.and(schema.check(v));
                }
                None => {
                    if let Some(extra) = &self.additional {
                        verdict = verdict.and(extra.check(v));
                    }
                }
            }
            if verdict == Invalid {
                return Invalid;
            }
        }
        if required_seen < self.required_listed
            || self.required_elsewhere.iter().any(|r| !m.contains_key(r))
        {
            return Invalid;
        }
        verdict
    }

    fn check_array(&self, a: &[Value]) -> Verdict {
        let n = a.len() as u64;
        if self.min_items.is_some_and(|m| n < m) || self.max_items.is_some_and(|m| n > m) {
            return Invalid;
        }
        let mut verdict = Valid;
        if let Some(items) = &self.items {
            for v in a {
                verdict = verdict.and(items.check(v));
                if verdict == Invalid {
                    return Invalid;
                }
            }
        }
        verdict
    }
}

fn type_matches(t: u8, v: &Value) -> Verdict {
    let ok = match v {
        Value::Null => t & T_NULL != 0,
        Value::Bool(_) => t & T_BOOL != 0,
        Value::Object(_) => t & T_OBJECT != 0,
        Value::Array(_) => t & T_ARRAY != 0,
        Value::String(_) => t & T_STRING != 0,
        Value::Number(n) => {
            if t & T_NUMBER != 0 || ((n.is_i64() || n.is_u64()) && t & T_INTEGER != 0) {
                true
            } else if t & T_INTEGER != 0 {
                // A float with no fraction counts as an integer: the validator decides.
                match n.as_f64() {
                    Some(f) if f.is_finite() && f.fract() != 0.0 => false,
                    _ => return Unknown,
                }
            } else {
                false
            }
        }
    };
    Verdict::of(ok)
}

fn any_of(nodes: &[Node], v: &Value) -> Verdict {
    let mut all_invalid = true;
    for n in nodes {
        match n.check(v) {
            Valid => return Valid,
            Unknown => all_invalid = false,
            Invalid => {}
        }
    }
    if all_invalid { Invalid } else { Unknown }
}

fn one_of(nodes: &[Node], v: &Value) -> Verdict {
    let (mut valid, mut unknown) = (0usize, 0usize);
    for n in nodes {
        match n.check(v) {
            Valid => valid += 1,
            Unknown => unknown += 1,
            Invalid => {}
        }
    }
    match (valid, unknown) {
        (1, 0) => Valid,
        (v, _) if v > 1 => Invalid,
        (0, 0) => Invalid,
        _ => Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn schemas() -> Vec<Value> {
        vec![
            json!({"type": "object", "properties": {
                    "name": {"type": "string", "maxLength": 3, "minLength": 1},
                    "count": {"type": "integer", "format": "int64", "minimum": 0, "maximum": 10},
                    "ratio": {"type": "number", "format": "double", "minimum": 0.0, "maximum": 1.0},
                    "on": {"type": "boolean"},
                    "n": {"type": ["integer", "null"], "maximum": 5, "minimum": -2},
                    "s": {"type": "string", "minLength": 2},
                    "mode": {"$ref": "#/$defs/Mode", "description": "The mode"},
                    "tag": {"type": ["string", "null"], "enum": ["a", "b", null]},
                    "opt": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]},
                    "list": {"type": "array", "items": {"type": "integer", "exclusiveMinimum": 0},
                             "maxItems": 2}},
                "required": ["name", "count", "mode", "elsewhere"],
                "additionalProperties": false,
                "$defs": {
                    "Mode": {"oneOf": [{"type": "string", "const": "fast"},
                                       {"type": "string", "const": "slow"},
                                       {"type": "string", "enum": ["slow", "both"]}]},
                    "Inner": {"type": "object", "properties": {"x": {"type": "number",
                        "exclusiveMaximum": 5}}, "additionalProperties": {"type": "boolean"}}
                }
            }),
            json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "^a"},
                   "q": {"allOf": [{"minimum": 2}, {"maximum": 4.5}]}}, "required": ["q"]}),
            json!({"type": "object", "properties": {"self": {"$ref": "#"}}, "maxProperties": 3}),
            // A derived enum: planned as one set of strings.
            json!({"type": "object", "properties": {"m": {"$ref": "#/$defs/M"}},
                   "required": ["m"], "additionalProperties": false,
                   "$defs": {"M": {"oneOf": [{"type": "string", "const": "fast"}, {"const": "slow"},
                                             {"type": "string", "enum": ["a", "b"]}]}}}),
            // Nullable by type, but the enum has no null.
            json!({"type": "object", "properties": {"e": {"type": ["string", "null"], "enum": ["a", "b"]},
                   "f": {"type": ["integer", "null"], "minimum": 0}}}),
            // Definitions that fan out, and recursion through two `$ref`s.
            json!({"type": "object", "properties": {"t": {"$ref": "#/$defs/T"}, "d": {"$ref": "#/$defs/D0"}},
                   "$defs": {
                       "T": {"type": "object", "properties": {"l": {"$ref": "#/$defs/T"}, "r": {"$ref": "#/$defs/T"},
                             "x": {"type": "integer"}}},
                       "D0": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/D1"}, {"$ref": "#/$defs/D1"}]}},
                       "D1": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/D2"}, {"$ref": "#/$defs/D2"}]}},
                       "D2": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/D3"}, {"$ref": "#/$defs/D3"}]}},
                       "D3": {"type": "array", "items": {"type": "string", "maxLength": 2}}}}),
            json!(true),
            json!(false),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            prop_oneof![-3i64..12, Just(i64::MIN), Just((1 << 53) + 1)].prop_map(Value::from),
            prop_oneof![Just(u64::MAX), 0u64..3].prop_map(Value::from),
            prop_oneof![-1.0f64..12.0, Just(2.0), Just(0.5), Just(4.5), Just(5.0)]
                .prop_map(Value::from),
            prop::sample::select(vec![
                "", "a", "ab", "abcd", "fast", "slow", "both", "é", "ééé", "éééé", "b", "c",
            ])
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop::sample::select(vec![
                            "name",
                            "count",
                            "ratio",
                            "on",
                            "mode",
                            "tag",
                            "opt",
                            "list",
                            "x",
                            "y",
                            "elsewhere",
                            "p",
                            "q",
                            "self",
                            "m",
                        ]),
                        inner
                    ),
                    0..7
                )
                .prop_map(|kv| Value::Object(
                    kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
                )),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The quick check never disagrees with the full validator: `Valid` only on what it
        /// accepts, `Invalid` only on what it rejects.
        #[test]
        fn the_quick_check_agrees_with_the_validator(v in value()) {
            for schema in schemas() {
                let full = super::super::compile(&schema).unwrap();
                let Some(plan) = plan(&schema) else { continue };
                match plan.check(&v) {
                    Valid => prop_assert!(full.is_valid(&v), "{schema} accepted {v}"),
                    Invalid => prop_assert!(!full.is_valid(&v), "{schema} rejected {v}"),
                    Unknown => {}
                }
            }
        }
    }

    #[test]
    fn a_derived_schema_is_decided_and_others_are_left_to_the_validator() {
        let s = &schemas()[0];
        let p = plan(s).unwrap();
        let ok = json!({"name": "ab", "count": 3, "mode": "fast", "elsewhere": 1});
        // `additionalProperties: false` and `elsewhere` is not a property: never valid.
        assert_eq!(p.check(&ok), Invalid);
        let mut s2 = s.clone();
        s2["additionalProperties"] = json!(true);
        let p2 = plan(&s2).unwrap();
        assert_eq!(p2.check(&ok), Valid);
        // `oneOf`: exactly one branch.
        let with_mode = |m: &str| json!({"name": "ab", "count": 3, "mode": m, "elsewhere": 1});
        assert_eq!(p2.check(&with_mode("both")), Valid);
        assert_eq!(p2.check(&with_mode("slow")), Invalid);
        assert_eq!(p2.check(&with_mode("none")), Invalid);
        assert_eq!(
            p2.check(&json!({"name": "ab", "count": 3.0, "mode": "fast", "elsewhere": 1})),
            Unknown
        );
        assert_eq!(
            p2.check(&json!({"name": "abcd", "count": 3, "mode": "fast", "elsewhere": 1})),
            Invalid
        );
        // A pattern is not modelled: at best unknown.
        let p3 = plan(&schemas()[1]).unwrap();
        assert_eq!(p3.check(&json!({"p": "abc", "q": 3})), Unknown);
        assert_eq!(p3.check(&json!({"q": 3})), Valid);
        assert_eq!(p3.check(&json!({"q": 5})), Invalid);
        let p4 = plan(&schemas()[3]).unwrap();
        assert_eq!(p4.check(&json!({"m": "slow"})), Valid);
        assert_eq!(p4.check(&json!({"m": "c"})), Invalid);
        assert_eq!(p4.check(&json!({"m": 1})), Invalid);
        let p5 = plan(&schemas()[4]).unwrap();
        assert_eq!(p5.check(&json!({"e": null})), Invalid);
        assert_eq!(p5.check(&json!({"e": "a", "f": null})), Valid);
        let p6 = plan(&schemas()[5]).unwrap();
        assert_eq!(p6.check(&json!({"d": [[[["ab"]]]]})), Valid);
        assert_eq!(p6.check(&json!({"d": [[[["abc"]]]]})), Invalid);
        // The recursive definition is left to the validator past its first level.
        assert_eq!(p6.check(&json!({"t": {"x": 1}})), Valid);
        assert_eq!(p6.check(&json!({"t": {"l": {"x": 1}}})), Unknown);
        // A chain of definitions each used twice: planned within the node budget.
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            defs.insert(
                format!("N{i}"),
                json!({"anyOf": [{"$ref": format!("#/$defs/N{}", i + 1)},
                                 {"$ref": format!("#/$defs/N{}", i + 1)}]}),
            );
        }
        defs.insert("N40".into(), json!({"type": "integer"}));
        let wide = json!({"$ref": "#/$defs/N0", "$defs": defs});
        let started = std::time::Instant::now();
        let p7 = plan(&wide).unwrap();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "hang guard"
        );
        assert_ne!(p7.check(&json!("x")), Valid);
        // Another draft is not planned.
        assert!(plan(&json!({"$schema": "http://json-schema.org/draft-07/schema#"})).is_none());
    }
}
