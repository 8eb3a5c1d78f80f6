//! Shows what the argument passes make of one request for one tool, without a model:
//! `cargo run -p toolwright-local --no-default-features --example ground -- TOOLS.json TOOL "QUERY"`
//! (`TOOLS.json` an MCP `tools/list` answer: `{"tools": [{name, description, inputSchema}]}`).
//! For each parameter: required or not, and the values it may take after narrowing, number
//! grounding and string grounding (or `free` when any value may be written). With
//! `GROUND_DEBUG=1`, each parameter's cue first.

use serde_json::{Map, Value};
use toolwright_core::ToolSpec;
use toolwright_local::cues::{Param, cue_values, focus};
use toolwright_local::narrow::{ground_numbers, narrow_for_query, require_given};
use toolwright_local::spans::{ground_strings, query_spans};

fn properties(schema: &Value) -> Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn print_cues(spec: &ToolSpec, query: &str) {
    let spans = query_spans(query);
    let props = properties(&spec.parameters);
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    for (k, p) in &props {
        let param = Param {
            name: k,
            description: text(p, "description"),
            siblings: &names,
            tool: &spec.name,
            tool_description: &spec.description,
        };
        let f = focus(param, query, &spans, |_| true);
        println!("focus {k}: {f:?} name cue {:?}", cue_values(k, query));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, tool, query] = args.as_slice() else {
        eprintln!("usage: ground TOOLS.json TOOL QUERY");
        std::process::exit(2);
    };
    let doc: Value = std::fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let tools = doc.get("tools").and_then(Value::as_array);
    let Some(t) = tools.and_then(|ts| ts.iter().find(|t| text(t, "name") == tool.as_str())) else {
        eprintln!("no tool {tool} in {file} (an MCP tools/list answer)");
        std::process::exit(2);
    };
    let schema = t.get("inputSchema").cloned().unwrap_or_default();
    let spec = ToolSpec::new(tool.as_str(), text(t, "description"), schema);
    // Objects of named fields are filled lifted, as the provider fills them.
    let spec = match toolwright_local::wrapper::unwrap(&spec) {
        Some((lifted, objects)) => {
            let keys: Vec<&str> = objects.objects.iter().map(|o| o.key.as_str()).collect();
            println!("lifted the fields of {keys:?}");
            lifted
        }
        None => spec,
    };
    if std::env::var_os("GROUND_DEBUG").is_some() {
        print_cues(&spec, query);
    }
    let (n, report) = narrow_for_query(&spec, query);
    if let Some(d) = report.describe(tool) {
        println!("narrowing: {d}");
    }
    let (g, grounded) = ground_numbers(&n, query);
    println!("numbers grounded: {grounded:?}");
    let (g, grounded) = ground_strings(&g, query, true);
    println!("strings grounded: {grounded:?}");
    let (g, made) = require_given(&g);
    if !made.is_empty() {
        println!("required, given by the request: {made:?}");
    }
    let required: Vec<&str> = g
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (k, p) in properties(&g.parameters) {
        let allowed = p
            .get("enum")
            .or_else(|| p.get("items").and_then(|i| i.get("enum")))
            .map_or_else(|| "free".to_string(), Value::to_string);
        let req = if required.contains(&k.as_str()) {
            "required"
        } else {
            "optional"
        };
        println!("  {k} ({req}): {allowed}");
    }
}
