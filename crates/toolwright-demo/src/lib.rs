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
//! `query_users`, the three article tools and `suggest_daily_reading` keep their data in SQLite:
//! they are the `sqlite` feature (on by default; SQLite is compiled from source), so a build
//! without it has the other seven.
//!
//! The tools keep no process globals: their state (the sandbox root, the shipped tables, the
//! users database, the article index and views connection) is typed registry state that they
//! receive as `State<T>` parameters, stored once by [`insert_state`]. Two registries with
//! different configs in one process each keep their own.
//!
//! ```
//! use toolwright_demo::{DemoConfig, files::FilesState};
//! let reg = toolwright_demo::registry(DemoConfig { root: "/srv/sandbox".into() }).unwrap();
//! assert!(reg.get("convert_currency").is_some());
//! assert_eq!(reg.state::<FilesState>().unwrap().root(), std::path::Path::new("/srv/sandbox"));
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use toolwright::{Registry, RegistryError};

#[cfg(feature = "sqlite")]
pub mod articles;
pub mod calc;
pub mod files;
pub mod finance;
mod summary;
#[cfg(feature = "sqlite")]
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

/// Stores the demo tools' state in `reg` (one value per module, built from `config`): the file
/// sandbox ([`files::FilesState`]), the rates table ([`finance::FinanceState`]), the weather
/// fixture ([`weather::WeatherState`]), and with the `sqlite` feature the users database
/// (`users::UsersState`) and the article corpus, index and views database
/// (`articles::ArticlesState`). Costly data loads on
/// first use. Nothing is shared between registries: two registries with different configs in
/// one process each see their own.
pub fn insert_state(reg: &Registry, config: &DemoConfig) {
    reg.insert_state(files::FilesState::new(config.root.clone()));
    reg.insert_state(finance::FinanceState::default());
    reg.insert_state(weather::WeatherState::default());
    #[cfg(feature = "sqlite")]
    reg.insert_state(users::UsersState::default());
    #[cfg(feature = "sqlite")]
    reg.insert_state(articles::ArticlesState::default());
}

/// Stores the demo state for `config` in `reg` ([`insert_state`]) and registers the demo tools.
///
/// To change a setting afterwards, store a new state value of that type (e.g.
/// `reg.insert_state(articles::ArticlesState::new(config))`): calls look their state up each
/// time. The sandbox is the exception: `delete_file`'s preview keeps the [`files::FilesState`]
/// stored here, so change its hard-link policy on that value
/// ([`files::FilesState::set_strict_links`]) and build another registry for another root.
///
/// # Errors
/// A name clash with a tool already in `reg`.
pub fn register_all(reg: &Registry, config: &DemoConfig) -> Result<(), RegistryError> {
    insert_state(reg, config);
    reg.register(finance::ConvertCurrencyTool)?;
    reg.register(weather::GetWeatherTool)?;
    reg.register(files::SearchFilesTool)?;
    reg.register(files::ReadFileTool)?;
    reg.register(calc::CalculateTool)?;
    #[cfg(feature = "sqlite")]
    reg.register(users::QueryUsersTool)?;
    // The confirmation gate asks the tool for its preview: it carries the registry's sandbox.
    let sandbox = reg
        .state::<files::FilesState>()
        .unwrap_or_else(|| Arc::new(files::FilesState::new(config.root.clone())));
    reg.register(files::DeleteFileWithPreview::new(sandbox))?;
    #[cfg(feature = "sqlite")]
    articles::register(reg)?;
    Ok(())
}

/// A registry with the demo tools and their state, configured with `config`.
///
/// # Errors
/// Never in practice (the demo schemas are valid); kept for symmetry with user registries.
pub fn registry(config: DemoConfig) -> Result<Registry, RegistryError> {
    let reg = Registry::new();
    register_all(&reg, &config)?;
    Ok(reg)
}
