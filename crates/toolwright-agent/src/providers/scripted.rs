//! Scripted conversations: [`ScriptedProvider`] replays recorded replies in order, and
//! [`Recorder`] wraps any provider to record what it answered, so agent-loop tests are
//! deterministic.
//!
//! A script file is JSON: `{"turns": [{"reply": {...}, "request": {...}}]}`. Each `reply` is a
//! [`Reply`]; `request` (written by the recorder, optional when writing by hand) summarises what
//! the provider was asked and is checked on replay when `expect_tools` is present.

use crate::message::Reply;
use crate::provider::{Provider, ProviderError, ProviderInfo, Turn};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Mutex;

/// What the provider was asked in one turn (a summary).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestSummary {
    /// Number of messages.
    pub messages: usize,
    /// The last message's role and text.
    pub last: String,
    /// Names of the tools offered.
    pub tools: Vec<String>,
}

impl RequestSummary {
    fn of(turn: &Turn<'_>) -> Self {
        RequestSummary {
            messages: turn.messages.len(),
            last: turn
                .messages
                .last()
                .map(|m| {
                    format!(
                        "{}: {}",
                        m.role.as_str(),
                        crate::http::shorten(&m.content, 200)
                    )
                })
                .unwrap_or_default(),
            tools: turn.tools.iter().map(|t| t.name.clone()).collect(),
        }
    }
}

/// One recorded turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScriptTurn {
    /// What was asked (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<RequestSummary>,
    /// When present, the tools that must be offered in this turn (checked on replay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_tools: Option<Vec<String>>,
    /// The reply to give.
    pub reply: Reply,
}

/// A script: the turns in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// The turns.
    pub turns: Vec<ScriptTurn>,
}

impl Script {
    /// Reads a script file.
    ///
    /// # Errors
    /// The file cannot be read or is not a script.
    pub fn load(path: &Path) -> Result<Script, ProviderError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ProviderError::Script(format!("cannot read {}: {e}", path.display())))?;
        serde_json::from_str(&text)
            .map_err(|e| ProviderError::Script(format!("{} is not a script: {e}", path.display())))
    }

    /// Writes the script as pretty JSON.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), ProviderError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| ProviderError::Script(format!("cannot serialize the script: {e}")))?;
        std::fs::write(path, text)
            .map_err(|e| ProviderError::Script(format!("cannot write {}: {e}", path.display())))
    }
}

/// Replays a [`Script`] turn by turn.
#[derive(Debug)]
pub struct ScriptedProvider {
    script: Script,
    next: Mutex<usize>,
}

impl ScriptedProvider {
    /// Replays `script`.
    pub fn new(script: Script) -> Self {
        ScriptedProvider {
            script,
            next: Mutex::new(0),
        }
    }

    /// Replays these replies (no request checks).
    pub fn from_replies(replies: Vec<Reply>) -> Self {
        ScriptedProvider::new(Script {
            turns: replies
                .into_iter()
                .map(|reply| ScriptTurn {
                    reply,
                    ..ScriptTurn::default()
                })
                .collect(),
        })
    }

    /// Replays a script file.
    ///
    /// # Errors
    /// See [`Script::load`].
    pub fn from_file(path: &Path) -> Result<Self, ProviderError> {
        Script::load(path).map(ScriptedProvider::new)
    }

    /// Turns replayed so far.
    pub fn used(&self) -> usize {
        *self.next.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Provider for ScriptedProvider {
    fn name(&self) -> String {
        "scripted".to_string()
    }

    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        let result = (|| {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let i = *next;
            let t = self.script.turns.get(i).ok_or_else(|| {
                ProviderError::Script(format!(
                    "the script has {} turn(s); turn {} was asked",
                    self.script.turns.len(),
                    i + 1
                ))
            })?;
            if let Some(want) = &t.expect_tools {
                let got: Vec<String> = turn.tools.iter().map(|s| s.name.clone()).collect();
                if &got != want {
                    return Err(ProviderError::Script(format!(
                        "turn {}: expected tools {want:?}, the agent offered {got:?}",
                        i + 1
                    )));
                }
            }
            *next += 1;
            Ok(t.reply.clone())
        })();
        Box::pin(async move { result })
    }
}

/// Wraps a provider and records every turn, to save as a script.
pub struct Recorder<P> {
    inner: P,
    turns: Mutex<Vec<ScriptTurn>>,
}

impl<P: Provider> std::fmt::Debug for Recorder<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("inner", &self.inner.name())
            .finish_non_exhaustive()
    }
}

impl<P: Provider> Recorder<P> {
    /// Records what `inner` answers.
    pub fn new(inner: P) -> Self {
        Recorder {
            inner,
            turns: Mutex::new(Vec::new()),
        }
    }

    /// The script recorded so far.
    pub fn script(&self) -> Script {
        Script {
            turns: self.turns.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }
}

impl<P: Provider> Provider for Recorder<P> {
    fn name(&self) -> String {
        format!("recording({})", self.inner.name())
    }

    fn wants_routing(&self) -> Option<usize> {
        self.inner.wants_routing()
    }

    fn info(&self) -> ProviderInfo {
        self.inner.info()
    }

    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let request = RequestSummary::of(&turn);
            let reply = self.inner.complete(turn).await?;
            self.turns
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(ScriptTurn {
                    request: Some(request),
                    expect_tools: None,
                    reply: reply.clone(),
                });
            Ok(reply)
        })
    }
}
