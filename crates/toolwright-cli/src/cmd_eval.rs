//! `toolwright eval`: mounts the eval crate's command ([`toolwright_eval::command`]), which owns
//! its flags, datasets and benchmark loaders, next to the provider flags that `run` and `chat`
//! share ([`ProviderArgs`]: the same flags and variables choose the model); this file maps
//! them to the eval's [`ModelChoice`] and its errors to exit codes.

use crate::provider_choice::{ProviderArgs, ProviderKind, select_kind};
use crate::{Global, usage_error};
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use toolwright_eval::command::{CommandError, ModelChoice};

/// `eval` arguments: the shared provider flags and the eval's own.
#[derive(Args, Debug)]
pub struct EvalCommandArgs {
    #[command(flatten)]
    provider: ProviderArgs,
    #[command(flatten)]
    eval: toolwright_eval::command::EvalArgs,
}

/// The model of the run, as `run` would choose it from the same flags and environment.
fn model_choice(provider: &ProviderArgs) -> ModelChoice {
    let opts = provider.options();
    match select_kind(&opts) {
        ProviderKind::Local => ModelChoice::Local(opts.model.map(PathBuf::from)),
        _ => {
            let provider = provider.clone();
            ModelChoice::Provider(Arc::new(move || provider.build(false)))
        }
    }
}

/// Runs `toolwright eval`: 0, 2 for a usage error, 1 when the report cannot be written.
pub async fn run(args: EvalCommandArgs, _global: &Global) -> i32 {
    let mut eval = args.eval;
    eval.model_choice = model_choice(&args.provider);
    match toolwright_eval::command::run(eval).await {
        Ok(()) => 0,
        Err(CommandError::Usage(msg)) => usage_error(&msg),
        Err(CommandError::Failed(msg)) => {
            eprintln!("toolwright: {msg}");
            1
        }
    }
}
