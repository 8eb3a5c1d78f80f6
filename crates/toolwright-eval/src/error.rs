//! [`EvalError`]: why a dataset, a benchmark file, a task or a report could not be used.

use std::path::PathBuf;

/// Why a dataset, a benchmark file, a task or a report could not be used. The text names where
/// (file, line, task) and what, e.g. `data/x.jsonl: line 3: task t1: empty `query``.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line or file is not JSON of the expected shape.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// Tool definitions could not be read.
    #[error("{0}")]
    Definitions(#[from] toolwright_core::defs::DefinitionError),
    /// A tool definition could not be registered (bad name, duplicate, schema that does not
    /// compile).
    #[error("{0}")]
    Register(#[from] toolwright_core::RegistryError),
    /// The content breaks a rule of its format; the message says which.
    #[error("{0}")]
    Invalid(String),
    /// An error located in a file, a line or a task.
    #[error("{at}: {source}")]
    At {
        /// Where: a file, `file:line`, `line N`, `task ID`.
        at: String,
        /// What went wrong there.
        source: Box<EvalError>,
    },
}

impl EvalError {
    /// [`EvalError::Invalid`].
    pub fn invalid(message: impl Into<String>) -> Self {
        EvalError::Invalid(message.into())
    }

    /// This error, located at `at` (a file, `file:line`, `task ID`).
    #[must_use]
    pub fn at(self, at: impl std::fmt::Display) -> Self {
        EvalError::At {
            at: at.to_string(),
            source: Box::new(self),
        }
    }

    /// The error itself, without the locations around it.
    pub fn root(&self) -> &EvalError {
        match self {
            EvalError::At { source, .. } => source.root(),
            other => other,
        }
    }
}

/// Hosts that report errors as text (the CLI's commands) keep using `?`.
impl From<EvalError> for String {
    fn from(e: EvalError) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_read_outside_in() {
        let e = EvalError::invalid("empty `query`")
            .at("task t1")
            .at("line 3")
            .at("data/x.jsonl");
        assert_eq!(
            e.to_string(),
            "data/x.jsonl: line 3: task t1: empty `query`"
        );
        assert!(matches!(e.root(), EvalError::Invalid(m) if m == "empty `query`"));
    }
}
