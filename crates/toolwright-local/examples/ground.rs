//! Shows what the argument passes make of one request for one tool, without a model:
//! `cargo run -p toolwright-local --no-default-features --example ground -- TOOLS.json TOOL "QUERY"`
//! (`TOOLS.json` an MCP `tools/list` answer: `{"tools": [{name, description, inputSchema}]}`).
//! For each parameter: required or not, and the values it may take after narrowing, number
//! grounding and string grounding (or `free` when any value may be written).

use serde_json::Value;
use toolwright_core::ToolSpec;
use toolwright_local::narrow::{ground_numbers, narrow_for_query};
use toolwright_local::spans::ground_strings;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, tool, query] = args.as_slice() else {
        eprintln!("usage: ground TOOLS.json TOOL QUERY");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).expect("read the tools file");
    let doc: Value = serde_json::from_str(&text).expect("parse the tools file");
    let tools = doc
        .get("tools")
        .and_then(Value::as_array)
        .expect("a `tools` array");
    let Some(t) = tools.iter().find(|t| t["name"] == tool.as_str()) else {
        eprintln!("no tool {tool}");
        std::process::exit(2);
    };
    let spec = ToolSpec::new(
        tool.as_str(),
        t["description"].as_str().unwrap_or(""),
        t["inputSchema"].clone(),
    );
    if std::env::var_os("GROUND_DEBUG").is_some() {
        let spans = toolwright_local::spans::query_spans(query);
        let props = spec.parameters["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        for (k, p) in &props {
            let param = toolwright_local::cues::Param {
                name: k,
                description: p["description"].as_str().unwrap_or(""),
                siblings: &names,
                tool,
                tool_description: t["description"].as_str().unwrap_or(""),
            };
            let f = toolwright_local::cues::focus(param, query, &spans, |_| true);
            println!(
                "focus {k}: {f:?} cue {:?}",
                toolwright_local::cues::cue_values(k, query)
            );
        }
    }
    let (n, report) = narrow_for_query(&spec, query);
    if let Some(d) = report.describe(tool) {
        println!("narrowing: {d}");
    }
    let (g, grounded) = ground_numbers(&n, query);
    println!("numbers grounded: {grounded:?}");
    let (g, grounded) = ground_strings(&g, query, true);
    println!("strings grounded: {grounded:?}");
    let required: Vec<&str> = g.parameters["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = g.parameters["properties"].as_object() {
        for (k, p) in props {
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
}
