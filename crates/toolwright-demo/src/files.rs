//! File tools sandboxed to a root directory: `search_files`, `read_file`, `delete_file`.
//!
//! Paths are resolved against the root; `..` that climbs out of it, absolute paths outside it and
//! symlinks that lead outside it are `PERMISSION_DENIED`. Reading follows symlinks (inside the
//! root); deleting never follows the last one: it removes the link, not what it points to.
//! Reading refuses special files (FIFOs, sockets, devices) before opening them, opens without
//! blocking, refuses files with several hard links (see [`FilesState::set_strict_links`] for
//! the threat model) and reads no more than `max_bytes`.
//!
//! The root and the hard-link policy are a [`FilesState`] stored in the registry: two
//! registries with different roots in one process each keep to their own.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use toolwright::{State, Tool, ToolContext, ToolError, ToolFuture, ToolSpec, tool};

/// The state of the file tools: the sandbox root and whether files with several hard links are
/// refused.
#[derive(Debug)]
pub struct FilesState {
    root: PathBuf,
    strict_links: AtomicBool,
}

impl FilesState {
    /// A sandbox at `root`, refusing files with several hard links.
    pub fn new(root: PathBuf) -> Self {
        FilesState {
            root,
            strict_links: AtomicBool::new(true),
        }
    }

    /// The sandbox root, as configured (not canonicalized).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Sets whether regular files with more than one hard link are refused (default yes).
    ///
    /// Threat model: the sandbox keeps the tools inside the root against paths the model writes
    /// (`..`, absolute paths, symlinks). A hard link is not a path that leaves the root: it is
    /// the outside file itself under a name inside it, and nothing on disk tells which name
    /// came first. Someone who can create links inside the root can expose any file they can
    /// link, so by default a file with more than one link is refused; `false` turns that off
    /// for roots whose contents are trusted (e.g. hard-linked build outputs).
    pub fn set_strict_links(&self, strict: bool) {
        self.strict_links.store(strict, Ordering::Relaxed);
    }

    /// Whether files with more than one hard link are refused.
    pub fn strict_links(&self) -> bool {
        self.strict_links.load(Ordering::Relaxed)
    }
}

/// The sandbox root (canonical) and the normal components of `requested` below it, after lexical
/// normalisation; nothing on disk is followed yet.
fn lexical_in_root(
    root: &Path,
    requested: &str,
) -> Result<(PathBuf, Vec<std::ffi::OsString>), ToolError> {
    if requested.contains('\0') {
        return Err(ToolError::validation(
            "The path contains a NUL byte.",
            "Pass a plain relative path.",
        ));
    }
    let root = root.canonicalize().map_err(|e| {
        ToolError::dependency_unavailable(
            format!("The sandbox root is not usable: {e}."),
            "Tell the user the file sandbox is misconfigured.",
        )
    })?;
    let req = Path::new(requested);
    let rel: PathBuf = if req.is_absolute() {
        match req.strip_prefix(&root) {
            Ok(r) => r.to_path_buf(),
            Err(_) => return Err(outside_root(requested)),
        }
    } else {
        req.to_path_buf()
    };
    // Lexical normalisation: `..` may not climb above the root.
    let mut parts: Vec<std::ffi::OsString> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_os_string()),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(outside_root(requested));
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(outside_root(requested)),
        }
    }
    Ok((root, parts))
}

fn outside_root(requested: &str) -> ToolError {
    ToolError::permission_denied(
        format!(
            "`{}` is outside the sandbox root.",
            requested.chars().take(200).collect::<String>()
        ),
        "Only paths inside the sandbox root are allowed; use a relative path such as `notes/todo.txt`.",
    )
}

fn not_in_sandbox(requested: &str) -> ToolError {
    ToolError::not_found(
        format!(
            "No file or directory `{}` in the sandbox.",
            requested.chars().take(200).collect::<String>()
        ),
        "Use search_files to find the right path.",
    )
}

/// Canonicalizes `path` and keeps it only if it stays inside `root` (symlinks included).
fn real_in_root(root: &Path, path: &Path, requested: &str) -> Result<PathBuf, ToolError> {
    match path.canonicalize() {
        Ok(real) if real.starts_with(root) => Ok(real),
        Ok(_) => Err(outside_root(requested)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(not_in_sandbox(requested)),
        Err(e) => Err(ToolError::permission_denied(
            format!("Cannot access `{requested}`: {e}."),
            "Try another path.",
        )),
    }
}

/// Resolves `requested` inside `root`, refusing anything that escapes it. Symlinks are followed:
/// this is the path to read; for deletion see [`locate_for_delete`], which never follows the
/// last component.
///
/// # Errors
/// `PERMISSION_DENIED` for escapes, `NOT_FOUND` when the path does not exist.
pub fn resolve_in_root(root: &Path, requested: &str) -> Result<PathBuf, ToolError> {
    let (root, parts) = lexical_in_root(root, requested)?;
    let joined = parts.iter().fold(root.clone(), |acc, p| acc.join(p));
    // Symlinks: the real path must stay inside the root too.
    real_in_root(&root, &joined, requested)
}

/// Where a symbolic link points, as far as the sandbox may tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    /// An existing file or directory inside the root, relative to it.
    Inside(PathBuf),
    /// Somewhere outside the root (not named: the sandbox does not reveal outside paths).
    Outside,
    /// Nothing: the link dangles.
    Missing,
}

/// What deleting a path would really remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Doomed {
    /// A regular file, with its size.
    File {
        /// Where it is (its directory canonical, inside the root).
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
    },
    /// A symbolic link: the link itself goes, its target is kept.
    Symlink {
        /// Where the link is (its directory canonical, inside the root); not followed.
        path: PathBuf,
        /// What it points to.
        target: LinkTarget,
    },
}

/// Locates what deleting `requested` would remove, without following a symlink in the last
/// component: the person approves deleting `alias`, so `alias` goes, not the file it points to.
/// The directories leading to it are resolved and must stay inside `root`.
///
/// # Errors
/// `PERMISSION_DENIED` for escapes, `NOT_FOUND` when nothing is there, `VALIDATION_ERROR` for a
/// directory.
pub fn locate_for_delete(root: &Path, requested: &str) -> Result<Doomed, ToolError> {
    let (root, mut parts) = lexical_in_root(root, requested)?;
    let is_directory = || {
        ToolError::validation(
            format!("`{requested}` is a directory."),
            "Only files can be deleted.",
        )
    };
    let Some(name) = parts.pop() else {
        return Err(is_directory()); // the root itself
    };
    let parent = parts.iter().fold(root.clone(), |acc, p| acc.join(p));
    let path = real_in_root(&root, &parent, requested)?.join(name);
    let meta = std::fs::symlink_metadata(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            not_in_sandbox(requested)
        } else {
            ToolError::permission_denied(
                format!("Cannot access `{requested}`: {e}."),
                "Try another path.",
            )
        }
    })?;
    if meta.file_type().is_symlink() {
        let target = match path.canonicalize() {
            Ok(real) => match real.strip_prefix(&root) {
                Ok(rel) => LinkTarget::Inside(rel.to_path_buf()),
                Err(_) => LinkTarget::Outside,
            },
            Err(_) => LinkTarget::Missing,
        };
        Ok(Doomed::Symlink { path, target })
    } else if meta.is_dir() {
        Err(is_directory())
    } else {
        Ok(Doomed::File {
            path,
            size: meta.len(),
        })
    }
}

/// Rejects search queries too vague to be useful, with advice on what to write instead.
///
/// # Errors
/// `VALIDATION_ERROR` for queries such as `*`, `anything` or `all files`.
pub fn specific_query(query: &str) -> Result<(), ToolError> {
    const VAGUE: &[&str] = &[
        "*",
        "**",
        "anything",
        "everything",
        "all",
        "all files",
        "files",
        "any",
        "something",
        "stuff",
    ];
    let q = query.trim().to_lowercase();
    if VAGUE.contains(&q.as_str()) {
        return Err(ToolError::validation(
            format!("The query `{}` is too generic to search for.", query.trim()),
            "Give part of a file name or a word the file contains, e.g. `report` or `.toml`.",
        ));
    }
    Ok(())
}

/// Find files under the sandbox root whose name or path contains a text.
///
/// Use this tool when the user asks where a file is, or to list files matching a name, before
/// reading one with read_file.
///
/// # Arguments
/// * `query` - Part of the file name or path to look for, e.g. "report" or ".toml"
/// * `directory` - Directory to search in, relative to the sandbox root
/// * `max_results` - Maximum number of paths to return
#[tool(
    display_label = "Searching files",
    timeout_ms = 5000,
    side_effects = "read",
    category = "files",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 200
)]
pub fn search_files(
    #[arg(min_length = 1, max_length = 200, validate = specific_query)] query: String,
    #[arg(default = ".", max_length = 500)] directory: String,
    #[arg(default = 20, min = 1, max = 200)] max_results: u32,
    files: State<FilesState>,
) -> Result<serde_json::Value, ToolError> {
    let root = files.root().to_path_buf();
    let start = resolve_in_root(&root, &directory)?;
    let root = root.canonicalize().unwrap_or(root);
    let needle = query.to_lowercase();
    let mut found = Vec::new();
    let mut stack = vec![(start, 0usize)];
    let mut visited = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            visited += 1;
            if visited > 50_000 {
                break;
            }
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            let rel = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .to_string();
            if ft.is_dir() {
                let name = entry.file_name();
                if depth < 12 && name != ".git" && name != "target" {
                    stack.push((path, depth + 1));
                }
            } else if rel.to_lowercase().contains(&needle) {
                found.push(rel);
            }
        }
    }
    found.sort();
    let total = found.len();
    found.truncate(max_results as usize);
    Ok(serde_json::json!({"query": query, "total": total, "paths": found}))
}

/// Read a text file inside the sandbox root.
///
/// Use this tool when the user asks what a file says; find the path first with search_files.
///
/// # Arguments
/// * `path` - Path of the file, relative to the sandbox root
/// * `max_bytes` - Maximum number of bytes to return
#[tool(
    display_label = "Reading a file",
    timeout_ms = 5000,
    side_effects = "read",
    category = "files",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 100
)]
pub fn read_file(
    #[arg(min_length = 1, max_length = 500)] path: String,
    #[arg(default = 8000, min = 1, max = 100_000)] max_bytes: u32,
    files: State<FilesState>,
) -> Result<serde_json::Value, ToolError> {
    use std::io::Read;
    let real = resolve_in_root(files.root(), &path)?;
    let (file, size) = open_regular(&real, &path, files.strict_links())?;
    // Only what is asked is read, whatever the file's size.
    let mut bytes = Vec::with_capacity((max_bytes as usize).min(64 * 1024));
    file.take(u64::from(max_bytes))
        .read_to_end(&mut bytes)
        .map_err(|e| {
            ToolError::permission_denied(format!("Cannot read `{path}`: {e}."), "Try another file.")
        })?;
    let mut cut = bytes.len();
    let text = loop {
        match std::str::from_utf8(bytes.get(..cut).unwrap_or_default()) {
            Ok(t) => break t.to_string(),
            // A character cut at the end of the window: show the text before it.
            Err(e) if e.error_len().is_none() => cut = e.valid_up_to(),
            Err(_) => {
                return Err(ToolError::validation(
                    format!("`{path}` is not a text file."),
                    "Only UTF-8 text files can be read.",
                ));
            }
        }
    };
    let size = size.max(bytes.len() as u64);
    Ok(
        serde_json::json!({"path": path, "size_bytes": size, "truncated": (cut as u64) < size, "content": text}),
    )
}

/// Opens `real` for reading if it is a regular file, and its size. Special files (FIFOs,
/// sockets, devices) are refused from their metadata before any open, and the open itself does
/// not block (`O_NONBLOCK`): a file swapped for a FIFO between the check and the open is
/// refused by the second check, on the open descriptor.
fn open_regular(
    real: &Path,
    requested: &str,
    strict_links: bool,
) -> Result<(std::fs::File, u64), ToolError> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let denied = |e: std::io::Error| {
        ToolError::permission_denied(
            format!("Cannot read `{requested}`: {e}."),
            "Try another file.",
        )
    };
    let check = |meta: &std::fs::Metadata| -> Result<(), ToolError> {
        if meta.is_dir() {
            return Err(ToolError::validation(
                format!("`{requested}` is a directory."),
                "Pass a file path; list the directory with search_files.",
            ));
        }
        if !meta.is_file() {
            return Err(ToolError::permission_denied(
                format!(
                    "`{requested}` is not a regular file (a FIFO, socket or device); it was not opened."
                ),
                "Only regular files can be read.",
            ));
        }
        if meta.nlink() > 1 && strict_links {
            return Err(ToolError::permission_denied(
                format!(
                    "`{requested}` has {} hard links; the sandbox cannot tell whether it is a file \
                     from outside the root, so it is not read.",
                    meta.nlink()
                ),
                "Read a file with a single link, or ask the user to copy it into the sandbox.",
            ));
        }
        Ok(())
    };
    check(&std::fs::metadata(real).map_err(denied)?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(real)
        .map_err(denied)?;
    let meta = file.metadata().map_err(denied)?;
    check(&meta)?;
    Ok((file, meta.len()))
}

/// What deleting a file inside `root` would do, for the confirmation gate: it names what would
/// really be removed (for a symbolic link, the link and not its target).
pub fn delete_preview(root: &Path, args: &serde_json::Value) -> serde_json::Value {
    let path = args
        .get("path")
        .and_then(|p| p.as_str())
        .unwrap_or_default();
    match locate_for_delete(root, path) {
        Ok(Doomed::File { size, .. }) => {
            serde_json::json!({"action": "delete file", "path": path, "exists": true, "kind": "file",
                               "size_bytes": size,
                               "effect": format!("`{path}` ({size} bytes) would be permanently deleted")})
        }
        Ok(Doomed::Symlink { target, .. }) => {
            let (points, kept, shown) = match &target {
                LinkTarget::Inside(t) => {
                    let t = t.to_string_lossy();
                    (
                        format!("pointing to `{t}`"),
                        format!("`{t}` is kept"),
                        Some(t.to_string()),
                    )
                }
                LinkTarget::Outside => (
                    "pointing outside the sandbox".to_string(),
                    "its target is kept".to_string(),
                    None,
                ),
                LinkTarget::Missing => (
                    "pointing to nothing that exists".to_string(),
                    "no other file is touched".to_string(),
                    None,
                ),
            };
            serde_json::json!({"action": "delete symbolic link", "path": path, "exists": true,
                               "kind": "symbolic link", "link_target": shown,
                               "effect": format!("the symbolic link `{path}` ({points}) would be removed; {kept}")})
        }
        Err(e) => serde_json::json!({"action": "delete file", "path": path, "exists": false,
                                     "effect": format!("nothing would be deleted: {}", e.message)}),
    }
}

/// Permanently delete a file inside the sandbox root.
///
/// Use this tool only when the user explicitly asks to delete a file. A person must approve each
/// deletion: the first call returns a preview and nothing is deleted until the host approves.
///
/// # Arguments
/// * `path` - Path of the file to delete, relative to the sandbox root
#[tool(
    display_label = "Deleting a file",
    timeout_ms = 5000,
    side_effects = "destructive",
    requires_confirmation,
    category = "files",
    version = "1.0.0",
    owner = "demo",
    // Not idempotent on purpose: a derived key would replay "deleted" for a file re-created
    // since, which the world no longer shows. Each deletion is approved and runs on its own.
    lint_allow = ["TW012"]
)]
pub fn delete_file(
    #[arg(min_length = 1, max_length = 500)] path: String,
    files: State<FilesState>,
) -> Result<serde_json::Value, ToolError> {
    // Never follow the last component: removing a symbolic link removes the link only.
    let (doomed, kind) = match locate_for_delete(files.root(), &path)? {
        Doomed::File { path, .. } => (path, "file"),
        Doomed::Symlink { path, .. } => (path, "symbolic link"),
    };
    std::fs::remove_file(&doomed).map_err(|e| {
        ToolError::permission_denied(format!("Cannot delete `{path}`: {e}."), "Tell the user.")
    })?;
    Ok(serde_json::json!({"deleted": path, "kind": kind}))
}

/// `delete_file` ([`DeleteFileTool`]) with its preview: the confirmation gate asks the tool, not
/// the call, what would happen, so the tool carries the sandbox it previews in (the same
/// [`FilesState`] its calls receive from the registry).
#[derive(Debug, Clone)]
pub struct DeleteFileWithPreview {
    files: Arc<FilesState>,
}

impl DeleteFileWithPreview {
    /// `delete_file` previewing deletions in `files`' sandbox.
    pub fn new(files: Arc<FilesState>) -> Self {
        DeleteFileWithPreview { files }
    }
}

impl Tool for DeleteFileWithPreview {
    fn spec(&self) -> &ToolSpec {
        DeleteFileTool.spec()
    }

    fn call(&self, args: serde_json::Value, ctx: ToolContext) -> ToolFuture {
        DeleteFileTool.call(args, ctx)
    }

    fn call_shared(&self, args: Arc<serde_json::Value>, ctx: ToolContext) -> ToolFuture {
        DeleteFileTool.call_shared(args, ctx)
    }

    fn call_ref(&self, args: &serde_json::Value, ctx: ToolContext) -> ToolFuture {
        DeleteFileTool.call_ref(args, ctx)
    }

    fn borrows_args(&self) -> bool {
        DeleteFileTool.borrows_args()
    }

    fn uses_context(&self) -> bool {
        DeleteFileTool.uses_context()
    }

    fn preview(&self, args: &serde_json::Value) -> serde_json::Value {
        delete_preview(self.files.root(), args)
    }
}
