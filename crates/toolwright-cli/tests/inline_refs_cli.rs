//! `--inline-refs` through the binary: `catalog export --dialect D`, `tools show` and
//! `serve --stdio` advertise schemas without `$ref`/`$defs`, and validation still holds.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use toolwright_mcp::{ClientOptions, McpSource, connect};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolwright")
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .current_dir(dir)
        .env("TOOLWRIGHT_ROOT", dir)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Definitions with a `$ref` (`ship`) and a recursive one (`walk`), in the OpenAI tools format.
fn write_defs(dir: &Path) -> String {
    let defs = json!([
        {"type": "function", "function": {"name": "ship",
            "description": "Ship a parcel. Use this when asked to send something.",
            "parameters": {"type": "object",
                "properties": {"to": {"$ref": "#/$defs/Address"}, "note": {"type": "string"}},
                "required": ["to"],
                "$defs": {"Address": {"type": "object",
                    "properties": {"city": {"type": "string"}}, "required": ["city"]}}}}},
        {"type": "function", "function": {"name": "walk",
            "description": "Walk a tree. Use this when asked to walk one.",
            "parameters": {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
                "$defs": {"Node": {"type": "object",
                    "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}}}
    ]);
    let path = dir.join("defs.json");
    std::fs::write(&path, defs.to_string()).unwrap();
    path.display().to_string()
}

fn address() -> Value {
    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
}

#[test]
fn catalog_export_inlines_refs_in_every_dialect_and_warns_about_recursion() {
    let dir = tempfile::tempdir().unwrap();
    let defs = write_defs(dir.path());
    let (code, out, _) = run(
        dir.path(),
        &[
            "catalog",
            "export",
            "--dialect",
            "mcp",
            "--functions",
            &defs,
        ],
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("$defs"),
        "without the flag the refs stay: {out}"
    );

    for (dialect, pointer) in [
        ("mcp", "/inputSchema"),
        ("openai", "/function/parameters"),
        ("anthropic", "/input_schema"),
        ("jsonschema", ""),
    ] {
        let (code, out, err) = run(
            dir.path(),
            &[
                "catalog",
                "export",
                "--dialect",
                dialect,
                "--inline-refs",
                "--functions",
                &defs,
            ],
        );
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let ship = v[0].pointer(pointer).unwrap();
        assert_eq!(ship["properties"]["to"], address(), "{dialect}: {ship}");
        assert!(ship.get("$defs").is_none(), "{dialect}");
        let walk = v[1].pointer(pointer).unwrap().to_string();
        assert!(!walk.contains("$ref"), "{dialect}: {walk}");
        assert!(
            err.contains("warning: tool `walk`") && err.contains("recursive"),
            "{dialect}: {err}"
        );
    }

    // Without a dialect there is nothing to inline into: a usage error.
    let (code, _, err) = run(
        dir.path(),
        &["catalog", "export", "--inline-refs", "--functions", &defs],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--dialect"), "{err}");
}

#[test]
fn tools_show_inlines_refs() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(dir.path(), &["tools", "show", "convert_currency"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("$ref"), "the demo tool uses $defs: {out}");
    for dialect in ["jsonschema", "mcp", "openai-strict"] {
        let (code, out, err) = run(
            dir.path(),
            &[
                "tools",
                "show",
                "convert_currency",
                "--dialect",
                dialect,
                "--inline-refs",
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert!(
            !out.contains("$ref") && !out.contains("$defs"),
            "{dialect}: {out}"
        );
        assert!(
            out.contains("EUR"),
            "{dialect}: the enum was inlined: {out}"
        );
    }
}

#[tokio::test]
async fn serve_advertises_inlined_schemas_and_still_validates() {
    let dir = tempfile::tempdir().unwrap();
    let defs = write_defs(dir.path());
    let source = McpSource::Command {
        program: bin().to_string(),
        args: vec![
            "serve".into(),
            "--stdio".into(),
            "--functions".into(),
            defs,
            "--inline-refs".into(),
            "--toolset".into(),
            "demo".into(),
            "--root".into(),
            dir.path().display().to_string(),
        ],
    };
    let conn = connect(&source, &ClientOptions::default()).await.unwrap();
    let tools = conn.list_tools().await.unwrap();
    let find = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap().clone();
    let ship = find("ship");
    assert_eq!(
        ship["inputSchema"],
        json!({"type": "object",
            "properties": {"to": address(), "note": {"type": "string"}},
            "required": ["to"]})
    );
    // The recursive tool keeps its references (inlining would change what it accepts).
    assert!(find("walk")["inputSchema"].get("$defs").is_some());
    // Demo tools with $defs are inlined too.
    let cc = find("convert_currency")["inputSchema"].to_string();
    assert!(!cc.contains("$ref") && !cc.contains("$defs"), "{cc}");

    let ok = conn
        .call_raw("ship", json!({"to": {"city": "Oslo"}}))
        .await
        .unwrap();
    assert_eq!(ok["isError"], false, "{ok}");
    let bad = conn
        .call_raw("ship", json!({"to": {"town": "Oslo"}}))
        .await
        .unwrap();
    assert_eq!(bad["isError"], true, "{bad}");
    assert_eq!(
        bad["structuredContent"]["error"]["code"],
        "VALIDATION_ERROR"
    );
    conn.close().await;
}
