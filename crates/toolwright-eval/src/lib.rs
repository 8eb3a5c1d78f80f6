//! toolwright-eval: does the framework make the same model call tools better?
//!
//! - [`dataset`]: tasks `{id, query, functions, expected}` in JSONL; [`bfcl`] imports the
//!   Berkeley Function Calling Leaderboard format.
//! - [`score`]: a pure scorer with BFCL's acceptable-values rules.
//! - [`run`]: each task through a [`run::Solver`] in `naive` and `guided` mode, with the task's
//!   functions registered as definition-only tools (validated, never executed).
//! - [`naive`]: the naive baseline, BFCL's own single shot for prompt-based models (its default
//!   system prompt and AST decoding of `[f(a=1), g(b=2)]`).
//! - [`agent`]: the solver over toolwright's agent (naive = [`naive`], guided = the loop).
//! - [`report`] and [`html`]: error rates per mode and category, the relative reduction, and the
//!   failing cases.
//! - [`toolset`] and [`routing`]: datasets over one shared toolset (the MCP dev set in
//!   `data/mcp`), routing recall per scorer and the out-of-scope floor's refusal rates.
//! - [`command`]: the `toolwright eval` command (its clap arguments and runner; the CLI only
//!   mounts it). With the `local` feature it can run the embedded model (`toolwright-local`).

pub mod agent;
pub mod bfcl;
pub mod command;
pub mod dataset;
pub mod e2e;
pub mod error;
pub mod html;
pub mod naive;
pub mod report;
pub mod routing;
pub mod run;
pub mod score;
pub mod toolset;
pub mod toolset_command;

/// The agent crate, re-exported so a host can build providers for [`agent::AgentSolver`].
pub use toolwright_agent;

pub use dataset::{ExpectedCall, Task};
pub use error::EvalError;
pub use report::{ModeSummary, Report};
pub use run::{Attempt, Mode, PreparedTask, RunOptions, Solver, TaskResult};
pub use score::{Call, ErrorKind, Score};
