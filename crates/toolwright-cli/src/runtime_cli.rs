//! The runtime's command-line plumbing: the idempotency store from `--store`, the metrics file
//! that `toolwright stats` reads, and the interactive approval prompt of `call`.

use crate::Global;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use toolwright::{Outcome, Status, ToolCall};
use toolwright_runtime::{CallOptions, IdempotencyStore, MetricsSnapshot, Runtime, open_store};

/// The idempotency store named by `--store` (default: in memory).
///
/// # Errors
/// A message for the user: unknown scheme, unopenable SQLite file.
pub fn store(global: &Global) -> Result<Arc<dyn IdempotencyStore>, String> {
    open_store(global.store.as_deref().unwrap_or("memory")).map_err(|e| format!("--store: {e}"))
}

static RUNTIMES: Mutex<Vec<Runtime>> = Mutex::new(Vec::new());

/// Remembers `rt` so that its metrics are saved when the command ends ([`flush`]).
pub fn track(rt: Runtime) -> Runtime {
    RUNTIMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(rt.clone());
    rt
}

/// Where metrics are kept between runs: `TOOLWRIGHT_STATS_FILE`, else `metrics.json` in
/// `$TOOLWRIGHT_HOME`, `$XDG_CACHE_HOME/toolwright` or `~/.cache/toolwright`.
pub fn stats_file() -> PathBuf {
    if let Some(p) = std::env::var_os("TOOLWRIGHT_STATS_FILE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let dir = std::env::var_os("TOOLWRIGHT_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("toolwright")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/toolwright")))
        .unwrap_or_else(|| PathBuf::from(".toolwright"));
    dir.join("metrics.json")
}

/// The metrics saved so far (empty when there is no file).
///
/// # Errors
/// The file exists but cannot be read or parsed.
pub fn load_stats() -> Result<MetricsSnapshot, String> {
    let path = stats_file();
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a metrics file: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(MetricsSnapshot::default()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Runs `f` on the saved metrics under an exclusive lock and writes the result back.
///
/// # Errors
/// The file cannot be locked, read or written.
pub fn update_stats(f: impl FnOnce(&mut MetricsSnapshot)) -> Result<(), String> {
    let path = stats_file();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let lock_path = path.with_extension("json.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    // Concurrent `toolwright` processes merge their counts one at a time.
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    let mut snap = load_stats().unwrap_or_default();
    f(&mut snap);
    let text = serde_json::to_string_pretty(&snap).map_err(|e| e.to_string())?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let _ = lock.unlock();
    Ok(())
}

/// Adds the metrics of every runtime built by this command to the metrics file. Called once
/// when the command ends; a failure is a warning, not an error of the command.
pub fn flush() {
    let rts = std::mem::take(&mut *RUNTIMES.lock().unwrap_or_else(|e| e.into_inner()));
    let mut total = MetricsSnapshot::default();
    for rt in &rts {
        total.merge(&rt.metrics());
    }
    if total.is_empty() {
        return;
    }
    if let Err(e) = update_stats(|s| s.merge(&total)) {
        eprintln!("toolwright: warning: metrics not saved: {e}");
    }
}

/// Runs `call`; when it needs confirmation and a person is at the terminal, shows the preview
/// and asks. `--approve` (`opts.approved`) skips the question; without a terminal the
/// `needs_confirmation` envelope is the answer.
pub async fn invoke_with_prompt(rt: &Runtime, call: ToolCall, opts: &CallOptions) -> Outcome {
    let out = rt.invoke(call.clone(), opts).await;
    if out.status() != Status::NeedsConfirmation
        || opts.approved
        || !std::io::stdin().is_terminal()
        || !std::io::stderr().is_terminal()
    {
        return out;
    }
    let Some(id) = out.meta.approval_id.clone() else {
        return out;
    };
    let preview = out
        .data
        .as_ref()
        .and_then(|d| serde_json::to_string_pretty(d).ok())
        .unwrap_or_default();
    let mut err = std::io::stderr();
    let _ = write!(
        err,
        "{} needs your approval.\n{preview}\nApprove this call? [y/N] ",
        call.name
    );
    let _ = err.flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        let _ = rt.deny(&id).await;
        return out;
    }
    if rt.approve(&id).await.is_err() {
        return out;
    }
    rt.invoke(call, opts).await
}
