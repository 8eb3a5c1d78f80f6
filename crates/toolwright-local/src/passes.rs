//! The named passes: each aid the local provider gives a small model, switched by [`Passes`]
//! and reported in the trace (the step's notes) whenever it changes something.
//!
//! A model of 135M parameters fills arguments well once the tool is fixed and there is little to
//! choose from, and is weak at choosing among tools, at saying "no tool fits" and at writing the
//! final sentence. Each pass below helps with one of those, in the order a query meets them:
//!
//! | pass | field | default | what it does |
//! |---|---|---|---|
//! | selection policy | [`Passes::selection`] | router first | [`crate::select`]: the router's first candidate is the tool and the model fills its arguments (the model chooses among close candidates with `ModelAmongClose`, which the switch `router_first` off selects: `toolwright eval --pass-off router_first`) |
//! | no tool fits | [`Passes::no_tool`] | [`crate::select::NoToolRule::default`] | [`crate::select`]: with an embedder, a linear score over the best query–tool similarity, the scaled lexical evidence and the request's length says no tool fits: the model answers directly |
//! | echoed names | [`Passes::drop_echoed_names`] | on | [`crate::select::drop_echoed_names`]: a string argument whose value is only the tool's or a parameter's name, or one word of its own parameter's name, is treated as missing, unless it is one of the schema's own values that the request names ("sorted by name" for a `sortBy` of `name`, `slug`) |
//! | needs input | [`Passes::ask_missing`] | on | [`crate::ask`]: when the tool is fixed and the request writes no value for one of its required identifiers (`project_id`, `issue_number`), the router's next candidate that lacks nothing and only reads is called, else the user is asked for the input instead of a call being made up |
//! | relevance floor | [`Passes::relevance_floor`] | off | a best router score below the floor means no tool fits: the model answers in text without being offered one |
//! | weak-match decline | [`Passes::decline_weak_matches`] | below 3.0 | a best router score below this (and no allowed value of a candidate named in the query) lets the model decline every tool (`{"tool": "none"}`) |
//! | wrapper objects | [`Passes::unwrap_objects`] | on | [`crate::wrapper`]: the fields of a tool's objects of named fields (a sole `{"params": {…}}`, or `cycle_data` beside `project_id`) are filled as if they were its parameters, and the call is wrapped again |
//! | narrowing | [`Passes::narrowing`] | on | [`crate::narrow::narrow_for_query`]: unmentioned optional parameters left out, optional booleans the query states set to what it states, enums restricted to the values the query names |
//! | number grounding | [`Passes::number_grounding`] | on | [`crate::narrow::ground_numbers`]: number parameters may only take numbers the query states |
//! | string grounding | [`Passes::string_grounding`] | on | [`crate::spans::ground_strings`]: free-form string parameters may only take spans of the request (words, quoted texts, parts of `a/b`), unless their examples have a shape no span has; a search query, question or prompt takes the request's subject ([`crate::topic`]) |
//! | role cues | [`Passes::role_cues`] | on | [`crate::cues`], [`crate::zones`]: a grounded string parameter whose value the request points at takes only that value: its name word before a value-like word or a quoted text ("channel C0ENG42"), the sides of an `owner/name` word, the words after "from" and "into" for a move's two ends, a word written as a path, URL or CSS selector, a file placed in a directory as one path, the IANA zones of the places named |
//! | given values required | [`Passes::require_given`] | on | [`crate::narrow::require_given`]: an optional string parameter that grounding left one text of the request, which no other parameter is offered, is required |
//! | distinct calls | [`Passes::distinct_calls`] | on | [`keep_distinct_grounded`]: a further call in a list is kept only when it is new and its texts occur in the request; [`distinct_items`]: a list of offered texts holds each once |
//! | whole lists | [`Passes::whole_lists`] | on | [`crate::lists::whole_lists`]: an array parameter whose written items are part of a list the request writes ("pubmed 29961564, 30021884 and 31043734") takes the whole list |
//! | re-ask on repeated numbers | [`Passes::reask_repeated_numbers`] | on | [`repeated_numbers`]: one call that gave several parameters the same number while others went unused is asked again (at most twice) |
//! | offered values scored whole | [`Passes::score_values`] | margin 2.0 | [`crate::scoring`]: where a string parameter of the first call may take one of several texts, the model scores each whole after the reply written up to it, on the same evaluation of the prompt; another text replaces the one written greedily when it scores at least the margin higher and is not part of it, nor holds it |
//! | corrections | [`Passes::max_corrections`] | 2 | after a validation error the model is asked again for the same tool, with the error; when it writes the rejected arguments again, the router's next candidate is tried instead |
//! | answer composition | [`Passes::compose_answer`] | on | [`crate::compose`]: when the model's answer does not state the result, the answer is written from the envelopes |
//!
//! No pass changes what the runtime validates: every call is still checked against the tool's
//! advertised schema. Defaults are neutral: nothing here was tuned on a benchmark; a host that
//! calibrated a value on its own data sets it.

use serde_json::Value;
use toolwright_core::ToolSpec;

/// Which aids the local provider applies (see the module docs for the table).
#[derive(Debug, Clone, PartialEq)]
pub struct Passes {
    /// Who picks the tool: the router's first candidate (default), or the model among the close
    /// candidates ([`crate::select::Selection`]).
    pub selection: crate::select::Selection,
    /// `Some(rule)`: when the router reports similarities (a router with an embedder), the
    /// rule decides whether no tool fits, and then the model answers directly; the lexical
    /// floors below then do not apply. Default `Some(`[`crate::select::NoToolRule::default`]`)`;
    /// [`crate::select::NoToolRule::floor`] is a similarity floor alone.
    pub no_tool: Option<crate::select::NoToolRule>,
    /// Treat a string argument whose value is only the tool's name or a parameter's name as
    /// missing ([`crate::select::drop_echoed_names`]). Default on.
    pub drop_echoed_names: bool,
    /// When the tool is fixed and the request writes no value for one of its required
    /// identifiers (`project_id`, `issue_number`), call the router's next candidate that lacks
    /// nothing and only reads, else ask the user for the input instead of calling
    /// ([`crate::ask`]). Default on.
    pub ask_missing: bool,
    /// `Some(floor)`: a best router score below `floor` means no tool fits the query, and the
    /// model answers directly without being offered any. Router scores are BM25, comparable
    /// within one toolset only: calibrate the floor on your own data. Default `None` (off: the
    /// model is offered tools whenever the router matched something).
    pub relevance_floor: Option<f32>,
    /// `Some(score)`: a best router score below `score` is a weak match, and the model may
    /// decline every tool and answer directly, unless the query names an allowed value of a
    /// candidate's parameter (a currency code, a role), which is strong evidence for it. At or
    /// above it, a tool is called. Default `Some(3.0)`; `None`: the model must always call.
    pub decline_weak_matches: Option<f32>,
    /// Fill the fields of a tool's objects of named fields (its only parameter, or objects
    /// beside others) as if they were its parameters, so that the passes below read them, and
    /// wrap the call again ([`crate::wrapper`]). Default on.
    pub unwrap_objects: bool,
    /// Narrow each candidate's schema to the query before the grammar is built
    /// ([`crate::narrow::narrow_for_query`]). Default on.
    pub narrowing: bool,
    /// When a candidate has a date parameter, read the days the request writes in words with
    /// their year ("January 1, 2026") as ISO dates before the passes below and the model read
    /// it ([`crate::periods::as_iso`]). Default on.
    pub written_dates: bool,
    /// Restrict number and integer parameters to the numbers the query states, when it states
    /// some ([`crate::narrow::ground_numbers`]). Default on.
    pub number_grounding: bool,
    /// Restrict free-form string parameters to spans of the query
    /// ([`crate::spans::ground_strings`]). Default on.
    pub string_grounding: bool,
    /// Among a grounded string parameter's spans, keep only the values the request points at
    /// by the parameter's name word or by writing a path or URL ([`crate::cues::focus`]), when
    /// it does. Needs `string_grounding`. Default on.
    pub role_cues: bool,
    /// Make an optional string parameter required when grounding left it exactly one text of
    /// the request, which no other parameter is offered; numbers stay optional
    /// ([`crate::narrow::require_given`]). Default on.
    pub require_given: bool,
    /// Keep a further call of a list only when it brings a new value and its texts occur in the
    /// request ([`keep_distinct_grounded`]), and a list of offered texts holds each text once
    /// ([`distinct_items`]); off keeps every call and item the model wrote. Default on.
    pub distinct_calls: bool,
    /// An array parameter whose written items are all items of one list the request writes
    /// (value-like words written alike, joined by commas or "and") takes the whole list, when
    /// its schema accepts each item ([`crate::lists::whole_lists`]). Default on.
    pub whole_lists: bool,
    /// When one call gave several number parameters the same number while the request states
    /// others, ask again without it there ([`repeated_numbers`]; at most twice). Default on.
    pub reask_repeated_numbers: bool,
    /// `Some(rule)`: where a string parameter of the call may take one of several texts (the
    /// spans grounding offered, or the schema's enum), the model scores each whole after the
    /// reply written up to it, and `rule` decides whether another value replaces the one it
    /// wrote greedily ([`crate::scoring`]); `None` keeps the written values and scores nothing.
    /// Default `Some(ValueRule::default())`.
    pub score_values: Option<crate::scoring::ValueRule>,
    /// Validation errors after which the model is asked again for the same tool, per query
    /// (0: never). Default 2.
    pub max_corrections: usize,
    /// When the model's answer does not state the result (the main value and any date), write
    /// the answer from the envelopes ([`crate::compose`]); also when every call failed or the
    /// results hold nothing to check a sentence against. Off: the model's answer is used as
    /// written. Default on.
    pub compose_answer: bool,
}

impl Default for Passes {
    fn default() -> Self {
        Passes {
            selection: crate::select::Selection::RouterFirst,
            no_tool: Some(crate::select::NoToolRule::default()),
            drop_echoed_names: true,
            ask_missing: true,
            relevance_floor: None,
            decline_weak_matches: Some(3.0),
            unwrap_objects: true,
            narrowing: true,
            written_dates: true,
            number_grounding: true,
            string_grounding: true,
            role_cues: true,
            require_given: true,
            distinct_calls: true,
            whole_lists: true,
            reask_repeated_numbers: true,
            score_values: Some(crate::scoring::ValueRule::default()),
            max_corrections: 2,
            compose_answer: true,
        }
    }
}

impl Passes {
    /// The names [`Passes::switch_off`] knows, as the table above writes them with `_`.
    pub const SWITCHES: [&'static str; 16] = [
        "router_first",
        "no_tool",
        "drop_echoed_names",
        "ask_missing",
        "unwrap_objects",
        "narrowing",
        "written_dates",
        "number_grounding",
        "string_grounding",
        "role_cues",
        "require_given",
        "distinct_calls",
        "whole_lists",
        "reask_repeated_numbers",
        "score_values",
        "compose_answer",
    ];

    /// Turns the pass called `name` off (one of [`Passes::SWITCHES`]; `-` and `_` alike), for
    /// ablations such as `toolwright eval --pass-off string_grounding`.
    ///
    /// ```
    /// use toolwright_local::passes::Passes;
    /// let mut p = Passes::default();
    /// p.switch_off("string-grounding").unwrap();
    /// assert!(!p.string_grounding && p.number_grounding);
    /// assert!(p.switch_off("grounding").is_err());
    /// ```
    ///
    /// # Errors
    /// An unknown name, with the known ones.
    pub fn switch_off(&mut self, name: &str) -> Result<(), String> {
        match name.trim().replace('-', "_").as_str() {
            // Off, the model chooses among the router's close candidates (for larger models).
            "router_first" => self.selection = crate::select::Selection::ModelAmongClose,
            "no_tool" => self.no_tool = None,
            "drop_echoed_names" => self.drop_echoed_names = false,
            "ask_missing" => self.ask_missing = false,
            "unwrap_objects" => self.unwrap_objects = false,
            "narrowing" => self.narrowing = false,
            "written_dates" => self.written_dates = false,
            "number_grounding" => self.number_grounding = false,
            "string_grounding" => self.string_grounding = false,
            "role_cues" => self.role_cues = false,
            "require_given" => self.require_given = false,
            "distinct_calls" => self.distinct_calls = false,
            "whole_lists" => self.whole_lists = false,
            "reask_repeated_numbers" => self.reask_repeated_numbers = false,
            "score_values" => self.score_values = None,
            "compose_answer" => self.compose_answer = false,
            other => {
                return Err(format!(
                    "no pass called {other:?}; the passes are {}",
                    Self::SWITCHES.join(", ")
                ));
            }
        }
        Ok(())
    }
}

/// The calls of a list to run: the first always; each further one only when it brings a value
/// no kept call has (a text not inside a kept text, or a number no kept call uses) and each of
/// its text values occurs in the request (case-insensitively). A small model that repeats
/// itself, shuffles the same numbers or invents items to fill the list adds nothing. Returns
/// the kept calls and how many were dropped.
pub fn keep_distinct_grounded(
    calls: Vec<(String, Value)>,
    query: &str,
) -> (Vec<(String, Value)>, usize) {
    fn scalars(v: &Value, texts: &mut Vec<String>, numbers: &mut Vec<f64>) {
        match v {
            Value::String(s) => texts.push(s.trim().to_lowercase()),
            Value::Number(n) => numbers.extend(n.as_f64()),
            Value::Array(a) => a.iter().for_each(|x| scalars(x, texts, numbers)),
            Value::Object(m) => m.values().for_each(|x| scalars(x, texts, numbers)),
            _ => {}
        }
    }
    let q = query.to_lowercase();
    let mut kept: Vec<(String, Value)> = Vec::new();
    let (mut seen_texts, mut seen_numbers) = (Vec::new(), Vec::new());
    let mut dropped = 0;
    for (name, args) in calls {
        let (mut texts, mut numbers) = (Vec::new(), Vec::new());
        scalars(&args, &mut texts, &mut numbers);
        let keep = kept.is_empty() || {
            let grounded = texts.iter().all(|t| q.contains(t.as_str()));
            let new_text = texts
                .iter()
                .any(|t| !seen_texts.iter().any(|s: &String| s.contains(t.as_str())));
            let new_number = numbers.iter().any(|n| !seen_numbers.contains(n));
            grounded && (new_text || new_number)
        };
        if keep {
            seen_texts.extend(texts);
            seen_numbers.extend(numbers);
            kept.push((name, args));
        } else {
            dropped += 1;
        }
    }
    (kept, dropped)
}

/// `args` for `spec` (grounded: its parameters' schemas carry the values offered) with each
/// list of offered texts holding each text once, in the order first written: a small model
/// loops through a short list (`["AAPL", "MSFT", "GOOGL", "AAPL", "MSFT", …]`, one path twice).
/// Lists of numbers (but of identifiers: `DropletIDs` `[8812233, 8812233]`), and lists whose
/// items are not restricted to offered values, stay as written. Returns the parameters changed.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::ToolSpec;
/// use toolwright_local::passes::distinct_items;
/// let spec = ToolSpec::new("quotes", "", json!({"type": "object", "properties": {
///     "symbols": {"type": "array", "items": {"type": "string", "enum": ["AAPL", "MSFT"]}}}}));
/// let mut args = json!({"symbols": ["AAPL", "MSFT", "AAPL"]});
/// assert_eq!(distinct_items(&spec, &mut args), ["symbols"]);
/// assert_eq!(args, json!({"symbols": ["AAPL", "MSFT"]}));
/// let spec = ToolSpec::new("add", "", json!({"type": "object", "properties": {
///     "droplet_ids": {"type": "array", "items": {"type": "number", "enum": [8812233]}},
///     "sizes": {"type": "array", "items": {"type": "number", "enum": [2]}}}}));
/// let mut args = json!({"droplet_ids": [8812233, 8812233], "sizes": [2, 2]});
/// assert_eq!(distinct_items(&spec, &mut args), ["droplet_ids"]);
/// assert_eq!(args, json!({"droplet_ids": [8812233], "sizes": [2, 2]}));
/// ```
pub fn distinct_items(spec: &ToolSpec, args: &mut Value) -> Vec<String> {
    let mut changed = Vec::new();
    let Some((props, given)) = props_and_args(spec, args) else {
        return changed;
    };
    for (k, v) in given.iter_mut() {
        let offered = props
            .get(k)
            .and_then(|p| p.get("items"))
            .is_some_and(|i| i.get("enum").is_some());
        let Value::Array(items) = v else { continue };
        // A list of identifiers never names one twice, whether they are texts or numbers.
        let ids = props.get(k).is_some_and(|p| {
            let about = p.get("description").and_then(Value::as_str).unwrap_or("");
            crate::cues::holds_identifier(k, about)
        });
        let comparable =
            items.iter().all(Value::is_string) || (ids && items.iter().all(Value::is_number));
        if !offered || !comparable {
            continue;
        }
        let before = items.len();
        let mut seen: Vec<Value> = Vec::with_capacity(before);
        items.retain(|x| {
            let new = !seen.contains(x);
            if new {
                seen.push(x.clone());
            }
            new
        });
        if items.len() < before {
            changed.push(k.clone());
        }
    }
    changed
}

/// A JSON object.
type Object = serde_json::Map<String, Value>;

/// The properties of `spec`'s schema and the arguments `args` as maps, when both are objects.
pub(crate) fn props_and_args<'a>(
    spec: &'a ToolSpec,
    args: &'a mut Value,
) -> Option<(&'a Object, &'a mut Object)> {
    let props = spec
        .parameters
        .get("properties")
        .and_then(Value::as_object)?;
    Some((props, args.as_object_mut()?))
}

/// When `args` give several number parameters of `tool` (among `tools`, narrowed to the
/// request's numbers: their schemas carry an `enum`) the same number while a later one could
/// take a number no parameter of the call took: that tool with the repeated numbers taken out of
/// the later parameters' `enum`s (the first parameter keeps its number), and the parameters
/// changed.
pub fn repeated_numbers(
    tools: &[ToolSpec],
    tool: &str,
    args: &Value,
) -> Option<(ToolSpec, Vec<String>)> {
    let spec = tools.iter().find(|s| s.name == tool)?;
    let props = spec.parameters.get("properties")?.as_object()?;
    let args = args.as_object()?;
    let used: Vec<f64> = args.values().filter_map(Value::as_f64).collect();
    let numeric: Vec<(&String, f64, &Vec<Value>)> = props
        .iter()
        .filter_map(|(k, p)| {
            let v = args.get(k).and_then(Value::as_f64)?;
            let e = p.get("enum")?.as_array()?;
            Some((k, v, e))
        })
        .collect();
    let mut out = spec.clone();
    let mut changed = Vec::new();
    for (j, (param, value, allowed)) in numeric.iter().enumerate() {
        let repeated = numeric
            .iter()
            .take(j)
            .any(|(_, earlier, _)| earlier == value);
        let unused = allowed
            .iter()
            .any(|a| a.as_f64().is_some_and(|x| !used.contains(&x)));
        if !(repeated && unused) {
            continue;
        }
        let rest: Vec<Value> = allowed
            .iter()
            .filter(|a| a.as_f64() != Some(*value))
            .cloned()
            .collect();
        if let Some(p) = out
            .parameters
            .get_mut("properties")
            .and_then(|p| p.get_mut(param.as_str()))
            .and_then(Value::as_object_mut)
        {
            p.insert("enum".into(), Value::Array(rest));
            changed.push((*param).clone());
        }
    }
    (!changed.is_empty()).then_some((out, changed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_number_given_twice_while_another_is_unused_is_asked_again() {
        let spec = ToolSpec::new(
            "tri",
            "Triangle.",
            json!({"type": "object", "properties": {
                "a": {"type": "number", "enum": [5, 4, 3]},
                "b": {"type": "number", "enum": [5, 4, 3]},
                "c": {"type": "number", "enum": [5, 4, 3]},
                "unit": {"type": "string"}}}),
        );
        let tools = [spec];
        let (s, changed) = repeated_numbers(
            &tools,
            "tri",
            &json!({"a": 5, "b": 5, "c": 5, "unit": "cm"}),
        )
        .unwrap();
        assert_eq!(changed, vec!["b", "c"]);
        assert_eq!(s.parameters["properties"]["a"]["enum"], json!([5, 4, 3]));
        assert_eq!(s.parameters["properties"]["b"]["enum"], json!([4, 3]));
        assert_eq!(s.parameters["properties"]["c"]["enum"], json!([4, 3]));
        assert!(repeated_numbers(&tools, "tri", &json!({"a": 5, "b": 4, "c": 3})).is_none());
        assert!(repeated_numbers(&tools, "other", &json!({"a": 6, "b": 6})).is_none());
    }

    #[test]
    fn extra_calls_must_be_new_and_grounded_in_the_request() {
        let q = "Play Taylor Swift for 20 minutes and Maroon 5 for 15 minutes";
        let calls = vec![
            (
                "play".to_string(),
                json!({"artist": "Taylor Swift", "duration": 20}),
            ),
            (
                "play".to_string(),
                json!({"artist": "Maroon 5", "duration": 15}),
            ),
            (
                "play".to_string(),
                json!({"artist": "Maroon 5", "duration": 15}),
            ),
            (
                "play".to_string(),
                json!({"artist": "Sterkie", "duration": 20}),
            ),
        ];
        let (kept, dropped) = keep_distinct_grounded(calls, q);
        assert_eq!(dropped, 2);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1].1["artist"], "Maroon 5");
        // the first call is kept whatever it holds
        let (kept, dropped) =
            keep_distinct_grounded(vec![("f".to_string(), json!({"x": "invented"}))], q);
        assert_eq!((kept.len(), dropped), (1, 0));
    }
}
