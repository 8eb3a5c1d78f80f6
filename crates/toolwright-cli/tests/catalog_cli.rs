//! Issue 4's acceptance through the binary: catalog export/check/diff, lint, dialects, route.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::Path;

fn tw(root: &Path) -> Command {
    let mut c = Command::cargo_bin("toolwright").unwrap();
    c.current_dir(root)
        .env("TOOLWRIGHT_ROOT", root)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    c
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(root: &Path, args: &[&str]) -> Run {
    let out = tw(root).args(args).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json_of(r: &Run) -> Value {
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", r.stdout, r.stderr))
}

/// `catalog export > c.yaml`, then `catalog check c.yaml`.
fn export_catalog(dir: &Path) -> String {
    let r = run(dir, &["catalog", "export"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    std::fs::write(dir.join("c.yaml"), &r.stdout).unwrap();
    r.stdout
}

#[test]
fn catalog_export_then_check_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = export_catalog(dir.path());
    for key in [
        "version: 1",
        "agent:",
        "- name: convert_currency",
        "side_effects:",
        "idempotency_required:",
        "max_retries:",
        "dependencies:",
        "fallback_tool:",
        "owner:",
        "sla_ms:",
        "parameters:",
    ] {
        assert!(yaml.contains(key), "{key} not in\n{yaml}");
    }
    let r = run(dir.path(), &["catalog", "check", "c.yaml"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("no drift"), "{}", r.stdout);
    let r = run(
        dir.path(),
        &["catalog", "check", "c.yaml", "--format", "json"],
    );
    assert_eq!(json_of(&r)["total"], 0);
}

#[test]
fn catalog_check_reports_drift_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = export_catalog(dir.path());
    // A catalog that lost a tool and has a stale SLA.
    let stale = yaml.replacen("sla_ms: 50", "sla_ms: 51", 1);
    std::fs::write(dir.path().join("stale.yaml"), &stale).unwrap();
    let r = run(
        dir.path(),
        &["catalog", "check", "stale.yaml", "--format", "json"],
    );
    assert_eq!(r.code, 1);
    let v = json_of(&r);
    assert!(
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["kind"] == "metadata_changed" && c["pointer"] == "#sla_ms")
    );
    // Unknown key: file:line:column on stderr, exit 2 (bad input, not drift; issue 14 item 12),
    // no panic.
    let bad = yaml.replacen("  owner:", "  colour: blue\n  owner:", 1);
    std::fs::write(dir.path().join("bad.yaml"), &bad).unwrap();
    let r = run(dir.path(), &["catalog", "check", "bad.yaml"]);
    assert_eq!(r.code, 2);
    let line = bad.lines().position(|l| l.contains("colour")).unwrap() + 1;
    assert!(
        r.stderr.contains(&format!("bad.yaml:{line}:3:")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("colour"), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"));
    // Broken YAML.
    std::fs::write(dir.path().join("broken.yaml"), "version: 1\ntools: [\n").unwrap();
    let r = run(dir.path(), &["catalog", "check", "broken.yaml"]);
    assert_eq!(r.code, 2);
    let r = run(dir.path(), &["catalog", "diff", "broken.yaml", "bad.yaml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("broken.yaml:"), "{}", r.stderr);
    // Missing file: usage error.
    assert_eq!(run(dir.path(), &["catalog", "check", "nope.yaml"]).code, 2);
}

#[test]
fn catalog_diff_names_the_breaking_change() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = export_catalog(dir.path());
    // Rename a parameter of convert_currency in a copy.
    let edited = yaml.replace("from_currency", "source_currency");
    assert_ne!(edited, yaml);
    std::fs::write(dir.path().join("c2.yaml"), &edited).unwrap();
    let r = run(dir.path(), &["catalog", "diff", "c.yaml", "c2.yaml"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("BREAKING"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("convert_currency: parameter `from_currency` renamed to `source_currency`"),
        "{}",
        r.stdout
    );
    let v = json_of(&run(
        dir.path(),
        &["catalog", "diff", "c.yaml", "c2.yaml", "--format", "json"],
    ));
    assert_eq!(v["breaking"], 1);
    assert_eq!(v["changes"][0]["kind"], "parameter_renamed");
    assert_eq!(v["changes"][0]["tool"], "convert_currency");
    // Compatible change only: exit 0.
    let doc_only = yaml.replacen("Amount to convert", "How much to convert", 1);
    std::fs::write(dir.path().join("c3.yaml"), &doc_only).unwrap();
    let r = run(dir.path(), &["catalog", "diff", "c.yaml", "c3.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("compatible"), "{}", r.stdout);
    // Identical: exit 0, nothing to report.
    let r = run(dir.path(), &["catalog", "diff", "c.yaml", "c.yaml"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("no changes"));
}

#[test]
fn lint_external_definitions_reports_vague_names_and_undocumented_params() {
    let dir = tempfile::tempdir().unwrap();
    let defs = json!([
        {"type": "function", "function": {"name": "get_data", "description": "Gets data.",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}},
        {"type": "function", "function": {"name": "search", "description": "Search for things in the system and return results.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}}}}
    ]);
    std::fs::write(dir.path().join("defs.json"), defs.to_string()).unwrap();
    let r = run(
        dir.path(),
        &["lint", "--functions", "defs.json", "--format", "json"],
    );
    assert_eq!(r.code, 1, "vague names are errors: {}", r.stdout);
    let v = json_of(&r);
    let findings = v["findings"].as_array().unwrap();
    let has = |rule: &str, tool: &str, pointer: Option<&str>| {
        findings.iter().any(|f| {
            f["rule"] == rule
                && f["tool"] == tool
                && pointer.is_none_or(|p| f["pointer"] == p)
                && f["fix"].as_str().is_some_and(|x| !x.is_empty())
        })
    };
    assert!(has("TW001", "get_data", None), "{findings:#?}");
    assert!(has("TW001", "search", None), "{findings:#?}");
    assert!(has("TW006", "get_data", Some("/properties/id")));
    assert!(has("TW006", "search", Some("/properties/q")));
    assert!(has("TW006", "search", Some("/properties/limit")));
    assert!(has("TW008", "search", Some("/properties/limit")));
    assert!(has("TW003", "get_data", None));
    assert!(v["summary"]["errors"].as_u64().unwrap() >= 2);
    // Text output names rule, tool and fix.
    let r = run(dir.path(), &["lint", "--functions", "defs.json"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("error   TW001 get_data"), "{}", r.stdout);
    assert!(r.stdout.contains("fix: "), "{}", r.stdout);
}

#[test]
fn demo_toolset_lints_clean() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(dir.path(), &["lint", "--format", "json"]);
    let v = json_of(&r);
    assert_eq!(v["findings"], serde_json::json!([]), "the demo lints clean");
    assert_eq!(r.code, 0);
    // The catalog of the demo lints the same as the registry.
    export_catalog(dir.path());
    let c = json_of(&run(
        dir.path(),
        &["lint", "--catalog", "c.yaml", "--format", "json"],
    ));
    assert_eq!(c["findings"], v["findings"]);
}

#[test]
fn tools_show_gemini_has_no_refs_defs_or_additional_properties() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        &["tools", "show", "convert_currency", "--dialect", "gemini"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    for banned in ["$ref", "$defs", "additionalProperties"] {
        assert!(!r.stdout.contains(banned), "{banned} in {}", r.stdout);
    }
    let v = json_of(&r);
    assert_eq!(v["name"], "convert_currency");
    assert_eq!(v["parameters"]["type"], "object");
    // The other dialects.
    let o = json_of(&run(
        dir.path(),
        &[
            "tools",
            "show",
            "convert_currency",
            "--dialect",
            "openai-strict",
        ],
    ));
    assert_eq!(o["function"]["strict"], true);
    assert_eq!(o["function"]["parameters"]["additionalProperties"], false);
    let a = json_of(&run(
        dir.path(),
        &[
            "tools",
            "show",
            "convert_currency",
            "--dialect",
            "anthropic",
        ],
    ));
    assert_eq!(a["input_schema"]["type"], "object");
    let m = json_of(&run(
        dir.path(),
        &["tools", "show", "delete_file", "--dialect", "mcp"],
    ));
    assert_eq!(m["annotations"]["destructiveHint"], true);
    assert_eq!(
        run(
            dir.path(),
            &["tools", "show", "convert_currency", "--dialect", "cobol"]
        )
        .code,
        2
    );
    // catalog export --dialect: every tool.
    let all = json_of(&run(
        dir.path(),
        &["catalog", "export", "--dialect", "gemini"],
    ));
    assert!(all.as_array().unwrap().len() >= 7);
    assert!(!all.to_string().contains("additionalProperties"));
    // Portability report.
    let p = json_of(&run(
        dir.path(),
        &[
            "catalog",
            "portability",
            "--dialect",
            "gemini",
            "--format",
            "json",
        ],
    ));
    assert!(p.as_array().unwrap().iter().any(|x| {
        x["tool"] == "convert_currency"
            && x["lowerings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l["construct"] == "additionalProperties")
    }));
}

#[test]
fn route_ranks_get_weather_first() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        &[
            "route",
            "what's the weather like in Tokyo",
            "-k",
            "3",
            "--format",
            "json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json_of(&r);
    assert_eq!(v["tools"][0]["name"], "get_weather", "{v:#}");
    assert!(v["tools"].as_array().unwrap().len() <= 3);
    assert!(v["tools"][0]["score"].as_f64().unwrap() > 0.0);
    let r = run(dir.path(), &["route", "is it raining in Paris"]);
    assert!(
        r.stdout.lines().next().unwrap().contains("get_weather"),
        "{}",
        r.stdout
    );
    // External definitions.
    let defs = json!([
        {"name": "book_table", "description": "Reserve a table at a restaurant.", "parameters": {"type": "object", "properties": {}}},
        {"name": "get_forecast", "description": "Weather forecast for a city.", "parameters": {"type": "object", "properties": {}}}
    ]);
    std::fs::write(dir.path().join("defs.json"), defs.to_string()).unwrap();
    let v = json_of(&run(
        dir.path(),
        &[
            "route",
            "will it rain tomorrow in Rome",
            "--functions",
            "defs.json",
            "--format",
            "json",
        ],
    ));
    assert_eq!(v["tools"][0]["name"], "get_forecast");
    assert_eq!(run(dir.path(), &["route", "x", "-k", "0"]).code, 2);
}

/// Needs the local embedder (`toolwright model fetch`, which the README's test command runs):
/// without it this test fails with the command's own hint.
#[test]
fn route_scorers_hybrid_dense_and_bm25() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolwright-eval/data/mcp/tools.json");
    let mcp = mcp.to_str().unwrap();
    let q = "what time is it in Tokyo right now";
    for scorer in ["hybrid", "dense"] {
        let r = run(
            dir.path(),
            &[
                "route",
                q,
                "--functions",
                mcp,
                "--scorer",
                scorer,
                "--format",
                "json",
            ],
        );
        assert_eq!(r.code, 0, "{scorer}: {}", r.stderr);
        let v = json_of(&r);
        assert_eq!(v["scorer"], scorer);
        assert_eq!(v["tools"][0]["name"], "get_current_time", "{v:#}");
        let sim = v["tools"][0]["similarity"].as_f64().unwrap();
        assert!(sim > 0.3 && sim <= 1.0, "{sim}");
    }
    let v = json_of(&run(
        dir.path(),
        &[
            "route",
            q,
            "--functions",
            mcp,
            "--scorer",
            "bm25",
            "--format",
            "json",
        ],
    ));
    assert_eq!(v["scorer"], "bm25");
    assert!(v["tools"][0].get("similarity").is_none());
    // The default is hybrid when the embedder is installed.
    let v = json_of(&run(
        dir.path(),
        &["route", q, "--functions", mcp, "--format", "json"],
    ));
    assert_eq!(v["scorer"], "hybrid");
    assert_eq!(run(dir.path(), &["route", q, "--scorer", "magic"]).code, 2);
}

#[test]
fn route_without_the_embedder_falls_back_to_bm25_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = tw(dir.path())
        .env("TOOLWRIGHT_HOME", home.path())
        .env_remove("TOOLWRIGHT_EMBEDDER")
        .args(["route", "weather in Paris", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scorer"], "bm25");
    assert_eq!(v["tools"][0]["name"], "get_weather");
    assert!(String::from_utf8_lossy(&out.stderr).contains("toolwright model fetch"));
    let out = tw(dir.path())
        .env("TOOLWRIGHT_HOME", home.path())
        .env_remove("TOOLWRIGHT_EMBEDDER")
        .args(["route", "weather in Paris", "--scorer", "hybrid"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("toolwright model fetch"));
}
