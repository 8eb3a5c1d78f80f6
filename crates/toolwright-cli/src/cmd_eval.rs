//! `toolwright eval`: mounts the eval crate's command ([`toolwright_eval::command`]), which owns
//! its flags, datasets and benchmark loaders; this file only maps its errors to exit codes.

use crate::{Global, usage_error};
use toolwright_eval::command::CommandError;

pub use toolwright_eval::command::EvalArgs;

/// Runs `toolwright eval`: 0, 2 for a usage error, 1 when the report cannot be written.
pub async fn run(args: EvalArgs, _global: &Global) -> i32 {
    match toolwright_eval::command::run(args).await {
        Ok(()) => 0,
        Err(CommandError::Usage(msg)) => usage_error(&msg),
        Err(CommandError::Failed(msg)) => {
            eprintln!("toolwright: {msg}");
            1
        }
    }
}
