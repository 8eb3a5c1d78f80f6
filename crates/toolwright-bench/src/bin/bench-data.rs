//! Writes the benchmark workloads to a directory for `bench/peers.py`, so the Python peers run on
//! exactly the bytes the Rust benches use: `bench-data OUT_DIR`.
//!
//! Files: `args_{small,medium,large}.json` (the arguments string), `schema_{size}.json` (the schema
//! toolwright advertises for that tool), `corpus_{100,1000,10000}.json` (routing documents as
//! plain text, one per tool) and `queries.json`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use toolwright_bench::{ROUTING_QUERIES, Size, document_text, registry, routing_corpus};

fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
}

fn run(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let reg = registry().map_err(|e| e.to_string())?;
    for size in Size::ALL {
        write(
            dir,
            &format!("args_{}.json", size.as_str()),
            &size.args_json(),
        )?;
        let entry = reg
            .get(size.tool_name())
            .ok_or_else(|| format!("tool {} missing", size.tool_name()))?;
        let schema =
            serde_json::to_string_pretty(&entry.spec().parameters).map_err(|e| e.to_string())?;
        write(dir, &format!("schema_{}.json", size.as_str()), &schema)?;
    }
    for n in [100usize, 1000, 10_000] {
        let docs: Vec<String> = routing_corpus(n).iter().map(document_text).collect();
        let text = serde_json::to_string(&docs).map_err(|e| e.to_string())?;
        write(dir, &format!("corpus_{n}.json"), &text)?;
    }
    let q = serde_json::to_string(&ROUTING_QUERIES).map_err(|e| e.to_string())?;
    write(dir, "queries.json", &q)
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: bench-data OUT_DIR");
        return ExitCode::from(2);
    };
    match run(&dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-data: {e}");
            ExitCode::from(1)
        }
    }
}
