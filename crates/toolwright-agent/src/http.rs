//! The HTTP client the remote providers share: JSON POST with timeouts, retries of 429 and 5xx
//! with exponential backoff that honours `Retry-After`, and clear errors for malformed bodies.
//! The client (reqwest, rustls) is compiled only with a network provider (feature `openai` or
//! `anthropic`); [`HttpConfig`] is always there, so hosts configure providers alike.

#[cfg(any(feature = "openai", feature = "anthropic"))]
use crate::provider::{ProviderError, Secret};
#[cfg(any(feature = "openai", feature = "anthropic"))]
use reqwest::StatusCode;
#[cfg(any(feature = "openai", feature = "anthropic"))]
use reqwest::header::HeaderMap;
#[cfg(any(feature = "openai", feature = "anthropic"))]
use serde_json::Value;
use std::time::Duration;

/// Timeouts and retry policy of the remote providers.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Deadline of one request (connect + answer).
    pub timeout: Duration,
    /// Deadline of the connection alone.
    pub connect_timeout: Duration,
    /// Retries after a 429, a 5xx, a timeout or a connection failure.
    pub max_retries: u32,
    /// First backoff delay; doubled at each retry (with jitter).
    pub backoff_base: Duration,
    /// The longest single wait, whether from backoff or from `Retry-After`. A server asking for a
    /// longer wait makes the request fail at once with its status.
    pub max_wait: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            max_retries: 3,
            backoff_base: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
        }
    }
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// Installs the `ring` crypto provider for rustls once per process (never aws-lc).
fn install_crypto() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Fails only when a provider is already installed, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// A JSON-over-HTTP client for one provider.
#[derive(Clone)]
pub(crate) struct Http {
    client: reqwest::Client,
    config: HttpConfig,
    provider: String,
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("provider", &self.provider)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// Whether a status is worth retrying.
fn retryable(status: StatusCode) -> bool {
    matches!(
        status.as_u16(),
        408 | 409 | 429 | 500 | 502 | 503 | 504 | 529
    )
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The wait a server asked for: `retry-after-ms`, else `Retry-After` in seconds.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    get("retry-after")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0 && *s < 86_400.0)
        .map(Duration::from_secs_f64)
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// The error message of an error body: `error.message` (OpenAI and Anthropic), else the text.
pub(crate) fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(Value::as_str)
            .map(String::from)
    });
    shorten(from_json.as_deref().unwrap_or(body).trim(), 300)
}

/// `text` cut to `max` characters with an ellipsis (for messages and trace notes).
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max).collect();
    s.push('…');
    s
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
impl Http {
    /// A client for `provider` (a name for messages).
    pub(crate) fn new(
        provider: impl Into<String>,
        config: HttpConfig,
    ) -> Result<Self, ProviderError> {
        install_crypto();
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("toolwright/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ProviderError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Http {
            client,
            config,
            provider: provider.into(),
        })
    }

    fn backoff(&self, retry: u32) -> Duration {
        let base = self.config.backoff_base.as_secs_f64()
            * 2f64.powi(i32::try_from(retry).unwrap_or(16).min(16));
        let jitter = 0.75 + rand::random::<f64>() * 0.5;
        Duration::from_secs_f64((base * jitter).min(self.config.max_wait.as_secs_f64()))
    }

    /// POSTs `body` as JSON to `url` and returns the JSON answer, retrying transient failures.
    /// `secret` is scrubbed from every error message.
    pub(crate) async fn post_json(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &Value,
        secret: Option<&Secret>,
    ) -> Result<Value, ProviderError> {
        let scrub = |s: String| secret.map_or_else(|| s.clone(), |k| k.scrub(&s));
        let mut retry = 0u32;
        loop {
            let sent = self
                .client
                .post(url)
                .headers(headers.clone())
                .json(body)
                .send()
                .await;
            let resp = match sent {
                Ok(r) => r,
                Err(e) => {
                    let err = if e.is_timeout() {
                        ProviderError::Timeout {
                            provider: self.provider.clone(),
                            after: self.config.timeout,
                        }
                    } else {
                        ProviderError::Connect {
                            provider: self.provider.clone(),
                            url: url.to_string(),
                            message: scrub(source_chain(&e)),
                        }
                    };
                    if retry < self.config.max_retries && (e.is_timeout() || e.is_connect()) {
                        let wait = self.backoff(retry);
                        tracing::warn!(provider = %self.provider, error = %err, ?wait, "retrying");
                        tokio::time::sleep(wait).await;
                        retry += 1;
                        continue;
                    }
                    return Err(err);
                }
            };
            let status = resp.status();
            let asked = retry_after(resp.headers());
            let text = match resp.text().await {
                Ok(t) => t,
                Err(e) if e.is_timeout() => {
                    return Err(ProviderError::Timeout {
                        provider: self.provider.clone(),
                        after: self.config.timeout,
                    });
                }
                Err(e) => {
                    return Err(ProviderError::Malformed {
                        provider: self.provider.clone(),
                        message: format!(
                            "cannot read the response body: {}",
                            scrub(source_chain(&e))
                        ),
                    });
                }
            };
            if status.is_success() {
                return serde_json::from_str(&text).map_err(|e| ProviderError::Malformed {
                    provider: self.provider.clone(),
                    message: format!(
                        "the body is not JSON ({e}); it starts with: {}",
                        scrub(shorten(&text, 120))
                    ),
                });
            }
            let err = ProviderError::Http {
                provider: self.provider.clone(),
                status: status.as_u16(),
                message: scrub(error_message(&text)),
            };
            if retryable(status) && retry < self.config.max_retries {
                let wait = asked.unwrap_or_else(|| self.backoff(retry));
                if wait > self.config.max_wait {
                    return Err(err);
                }
                tracing::warn!(provider = %self.provider, status = status.as_u16(), ?wait, "retrying");
                tokio::time::sleep(wait).await;
                retry += 1;
                continue;
            }
            return Err(err);
        }
    }
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
/// An error with its causes, on one line.
fn source_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[cfg(all(test, any(feature = "openai", feature = "anthropic")))]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn error_messages_are_extracted_and_short() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(
            error_message(r#"{"type":"error","error":{"type":"x","message":"overloaded"}}"#),
            "overloaded"
        );
        assert!(error_message(&"x".repeat(1000)).chars().count() <= 301);
    }
}
