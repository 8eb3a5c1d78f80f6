//! The demo toolset of toolwright: realistic, offline tools used by the README, the CLI and tests.
//!
//! | tool | side effects | what it shows |
//! |---|---|---|
//! | `convert_currency` | none | enums, a dated data table |
//! | `get_weather` | read | `NOT_FOUND` with suggestions |
//! | `search_files`, `read_file` | read | a sandbox: `PERMISSION_DENIED` outside the root; a custom validator |
//! | `calculate` | none | a real expression parser, clear errors |
//! | `query_users` | read | enum-checked filters over SQLite, bounds, defaults |
//! | `delete_file` | destructive | the confirmation gate with a preview |
//! | `search_articles_semantic` | read | a dependency that can be switched off, with `fallback` |
//! | `search_articles_keyword` | read | the fallback over the same shipped corpus |
//! | `track_article_view` | write, idempotent | idempotency keys, a SQLite side effect |
//! | `suggest_daily_reading` | write | composition through `ToolContext::call_tool` |
//!
//! ```
//! let reg = toolwright_demo::registry(toolwright_demo::DemoConfig::default()).unwrap();
//! assert!(reg.get("convert_currency").is_some());
//! ```

use std::path::PathBuf;
use std::sync::RwLock;
use toolwright::{Registry, RegistryError};

pub mod articles;
pub mod calc;
pub mod files;
pub mod finance;
mod summary;
pub mod users;
pub mod weather;

pub use summary::summarize;

/// Where the demo tools act.
#[derive(Debug, Clone)]
pub struct DemoConfig {
    /// Root of the file sandbox (`search_files`, `read_file`, `delete_file`).
    pub root: PathBuf,
}

impl Default for DemoConfig {
    /// The root is `$TOOLWRIGHT_ROOT`, else the current directory.
    fn default() -> Self {
        let root = std::env::var_os("TOOLWRIGHT_ROOT")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."));
        DemoConfig { root }
    }
}

static CONFIG: RwLock<Option<DemoConfig>> = RwLock::new(None);

/// Sets the configuration the demo tools read (the last call wins; one per process).
pub fn configure(config: DemoConfig) {
    let mut c = CONFIG.write().unwrap_or_else(|e| e.into_inner());
    *c = Some(config);
}

/// The current configuration.
pub fn config() -> DemoConfig {
    CONFIG
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

/// Registers the demo tools into `reg`.
///
/// # Errors
/// A name clash with a tool already in `reg`.
pub fn register_all(reg: &Registry) -> Result<(), RegistryError> {
    reg.register(finance::ConvertCurrencyTool)?;
    reg.register(weather::GetWeatherTool)?;
    reg.register(files::SearchFilesTool)?;
    reg.register(files::ReadFileTool)?;
    reg.register(calc::CalculateTool)?;
    reg.register(users::QueryUsersTool)?;
    reg.register(files::DeleteFileTool)?;
    articles::register(reg, &config())?;
    Ok(())
}

/// A registry with the demo tools, configured with `config`.
///
/// # Errors
/// Never in practice (the demo schemas are valid); kept for symmetry with user registries.
pub fn registry(config: DemoConfig) -> Result<Registry, RegistryError> {
    configure(config);
    let reg = Registry::new();
    register_all(&reg)?;
    Ok(reg)
}
