//! The [`Provider`] trait: one model turn, whatever the model and wire format.

use crate::message::{Message, Reply};
use futures::future::BoxFuture;
use std::fmt;
use std::time::Duration;
use toolwright_core::ToolSpec;

/// A tool the router ranked for the current query, with its score (higher is better, only
/// comparable within one query).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// The tool's name.
    pub name: String,
    /// The router's score.
    pub score: f32,
    /// The cosine similarity of the query and the tool's description, when the router has an
    /// embedder: unlike the score, comparable across queries and toolsets, so it can say that
    /// no tool fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    /// The tool's lexical (BM25) score divided by [`toolwright_catalog::Router::lexical_scale`],
    /// so that it reads alike in a toolset of 20 tools and one of 2,000, when the router
    /// computed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical: Option<f32>,
}

/// What a provider is asked for one turn.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The conversation so far (system prompt first when there is one).
    pub messages: &'a [Message],
    /// The tools the model may call in this turn (empty: the model must answer in text).
    pub tools: &'a [ToolSpec],
    /// The router's ranking of `tools` for the latest user query, when the agent routed: best
    /// first; an empty list means no tool matched the query at all.
    pub ranking: Option<&'a [Candidate]>,
}

/// Why a provider could not produce a reply.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The provider is not set up (missing key, model file, bad URL).
    #[error("{0}")]
    Config(String),
    /// The server answered with an error status (after retries, for retryable ones).
    #[error("{provider}: HTTP {status}: {message}")]
    Http {
        /// Which provider.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The server's error message (shortened).
        message: String,
    },
    /// The server could not be reached.
    #[error("{provider}: cannot reach {url}: {message}")]
    Connect {
        /// Which provider.
        provider: String,
        /// The URL (never with credentials).
        url: String,
        /// The transport error.
        message: String,
    },
    /// No answer within the deadline.
    #[error("{provider}: no answer within {after:?}")]
    Timeout {
        /// Which provider.
        provider: String,
        /// The deadline.
        after: Duration,
    },
    /// The answer did not have the expected shape.
    #[error("{provider}: malformed response: {message}")]
    Malformed {
        /// Which provider.
        provider: String,
        /// What was wrong.
        message: String,
    },
    /// The local model failed (load, decode, grammar).
    #[error("local model: {0}")]
    Model(String),
    /// A scripted conversation ran out or did not match.
    #[error("script: {0}")]
    Script(String),
}

impl ProviderError {
    /// A short, low-cardinality name of the failure, for the `error.type` attribute of the
    /// model call's span: the HTTP status (`"429"`, `"500"`) for [`ProviderError::Http`], else
    /// `config`, `connect`, `timeout`, `malformed_response`, `model` or `script`.
    pub fn error_type(&self) -> std::borrow::Cow<'static, str> {
        match self {
            ProviderError::Config(_) => "config".into(),
            ProviderError::Http { status, .. } => status.to_string().into(),
            ProviderError::Connect { .. } => "connect".into(),
            ProviderError::Timeout { .. } => "timeout".into(),
            ProviderError::Malformed { .. } => "malformed_response".into(),
            ProviderError::Model(_) => "model".into(),
            ProviderError::Script(_) => "script".into(),
        }
    }
}

/// What a provider says about itself in telemetry: the attributes of the OpenTelemetry GenAI
/// semantic conventions that describe the model behind it.
///
/// ```
/// use toolwright_agent::ProviderInfo;
/// let info = ProviderInfo::from_name("openai:gpt-4o-mini").with_server_url("https://api.openai.com/v1");
/// assert_eq!(info.provider, "openai");
/// assert_eq!(info.model.as_deref(), Some("gpt-4o-mini"));
/// assert_eq!(info.server_address.as_deref(), Some("api.openai.com"));
/// assert_eq!(info.server_port, Some(443));
/// assert_eq!(ProviderInfo::from_name("scripted").model, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProviderInfo {
    /// `gen_ai.provider.name`: `openai` (any OpenAI-compatible server), `anthropic`,
    /// `llama.cpp`... A custom value where no well-known one applies.
    pub provider: String,
    /// `gen_ai.request.model`: the model asked for, when known.
    pub model: Option<String>,
    /// `server.address`: the host the provider talks to, for a remote provider.
    pub server_address: Option<String>,
    /// `server.port`: its port.
    pub server_port: Option<u16>,
}

/// The host (lower case; an IPv6 address in brackets) and port of an absolute URL, the port
/// being the scheme's default when the URL names none. `None` when there is no host.
fn host_and_port(url: &str) -> Option<(String, Option<u16>)> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (addr, tail) = v6.split_once(']')?;
            (format!("[{addr}]"), tail.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        },
    };
    if host.is_empty() || host == "[]" {
        return None;
    }
    let port = match port.filter(|p| !p.is_empty()) {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => match scheme.to_ascii_lowercase().as_str() {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            _ => None,
        },
    };
    Some((host.to_ascii_lowercase(), port))
}

impl ProviderInfo {
    /// A provider `provider` asked for `model`.
    pub fn new(provider: impl Into<String>, model: Option<String>) -> Self {
        ProviderInfo {
            provider: provider.into(),
            model,
            server_address: None,
            server_port: None,
        }
    }

    /// The host and port of `url` (its scheme's default port when it names none); unchanged
    /// when `url` does not parse.
    pub fn with_server_url(mut self, url: &str) -> Self {
        if let Some((host, port)) = host_and_port(url) {
            self.server_address = Some(host);
            self.server_port = port;
        }
        self
    }

    /// Read from a provider name of the form `provider:model` (`openai:gpt-4o-mini`); a name
    /// without `:` is the provider alone.
    pub fn from_name(name: &str) -> Self {
        match name.split_once(':') {
            Some((p, m)) if !p.is_empty() && !m.is_empty() => {
                ProviderInfo::new(p, Some(m.to_string()))
            }
            _ => ProviderInfo::new(name, None),
        }
    }
}

/// One model turn: messages and tool definitions in, an assistant [`Reply`] out.
///
/// Implementations speak a real wire format (OpenAI Chat Completions, Anthropic Messages), a
/// prompt convention (prompted JSON), a local model (llama.cpp), or a recording (scripted).
pub trait Provider: Send + Sync {
    /// A short description for traces, e.g. `openai:gpt-4o-mini` (never a key).
    fn name(&self) -> String;

    /// Asks the model for one turn.
    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>>;

    /// How many routed candidates this provider wants to see at most, when it needs the agent to
    /// narrow the toolset for every query (a small local model). `None`: route only large toolsets.
    fn wants_routing(&self) -> Option<usize> {
        None
    }

    /// The provider and model for telemetry (the attributes of the agent's `invoke_agent` and
    /// `chat` spans). By default read from [`Provider::name`] when it has the form
    /// `provider:model`.
    fn info(&self) -> ProviderInfo {
        ProviderInfo::from_name(&self.name())
    }
}

impl<P: Provider + ?Sized> Provider for std::sync::Arc<P> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        (**self).complete(turn)
    }
    fn wants_routing(&self) -> Option<usize> {
        (**self).wants_routing()
    }
    fn info(&self) -> ProviderInfo {
        (**self).info()
    }
}

/// A secret (API key) that never shows in `Debug`, `Display`, logs or traces.
///
/// ```
/// let k = toolwright_agent::Secret::new("sk-123");
/// assert_eq!(format!("{k:?}"), "Secret(***)");
/// assert_eq!(k.expose(), "sk-123");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the secret is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with every occurrence of the secret replaced by `***`.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::host_and_port;

    #[test]
    fn server_urls_give_host_and_port_without_an_http_client() {
        let hp = |u: &str| host_and_port(u);
        assert_eq!(
            hp("https://api.openai.com/v1"),
            Some(("api.openai.com".into(), Some(443)))
        );
        assert_eq!(
            hp("http://127.0.0.1:8080/v1"),
            Some(("127.0.0.1".into(), Some(8080)))
        );
        assert_eq!(
            hp("http://user:pw@Example.COM/x?y#z"),
            Some(("example.com".into(), Some(80)))
        );
        assert_eq!(
            hp("http://[::1]:11434/v1"),
            Some(("[::1]".into(), Some(11434)))
        );
        assert_eq!(hp("http://[::1]/v1"), Some(("[::1]".into(), Some(80))));
        assert_eq!(hp("unix://sock"), Some(("sock".into(), None)));
        assert_eq!(hp("localhost:8080"), None, "no scheme");
        assert_eq!(hp("http://"), None);
        assert_eq!(hp("http://host:99999/"), None, "port out of range");
    }
}
