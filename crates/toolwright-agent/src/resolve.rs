//! Choosing a provider from flags and the environment, the way `toolwright run` does:
//! explicit `--provider` / `--base-url` / `--model` first; else `TOOLWRIGHT_BASE_URL`,
//! `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`; else the embedded model.

use crate::provider::{Provider, ProviderError, Secret};
use crate::providers::anthropic::{
    ANTHROPIC_BASE_URL, ANTHROPIC_DEFAULT_MODEL, AnthropicConfig, AnthropicProvider,
};
use crate::providers::openai::{
    OPENAI_BASE_URL, OPENAI_DEFAULT_MODEL, OpenAiConfig, OpenAiProvider,
};
use crate::providers::prompted::PromptedProvider;
use std::sync::Arc;

/// The kinds of provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// The embedded llama.cpp model.
    Local,
    /// An OpenAI-compatible Chat Completions endpoint.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Prompted JSON over a text-only model (the endpoint when one is configured, else the
    /// embedded model).
    Prompted,
}

impl ProviderKind {
    /// Parses `local | openai | anthropic | prompted`.
    pub fn parse(s: &str) -> Option<ProviderKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "local" | "embedded" | "llama" => Some(ProviderKind::Local),
            "openai" | "openai-compatible" | "ollama" => Some(ProviderKind::OpenAi),
            "anthropic" | "claude" => Some(ProviderKind::Anthropic),
            "prompted" | "json" => Some(ProviderKind::Prompted),
            _ => None,
        }
    }
}

/// What the user asked for; empty fields fall back to the environment.
#[derive(Debug, Clone, Default)]
pub struct ProviderOptions {
    /// `--provider`.
    pub kind: Option<ProviderKind>,
    /// `--model`: a model name, or a GGUF path for the local provider.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
}

/// The message when nothing is configured and the embedded model is missing.
pub fn missing_model_message() -> String {
    format!(
        "no model available: run `{}` to download the embedded model (about 100 MB), or set \
         OPENAI_API_KEY, ANTHROPIC_API_KEY or TOOLWRIGHT_BASE_URL",
        crate::model::FETCH_COMMAND
    )
}

fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The kind the options and environment select.
pub fn select_kind(opts: &ProviderOptions) -> ProviderKind {
    if let Some(k) = opts.kind {
        return k;
    }
    if opts.model.as_deref().is_some_and(|m| m.ends_with(".gguf")) {
        return ProviderKind::Local;
    }
    if opts.base_url.is_some()
        || env("TOOLWRIGHT_BASE_URL").is_some()
        || env("OPENAI_API_KEY").is_some()
    {
        return ProviderKind::OpenAi;
    }
    if env("ANTHROPIC_API_KEY").is_some() {
        return ProviderKind::Anthropic;
    }
    ProviderKind::Local
}

fn openai(opts: &ProviderOptions) -> Result<OpenAiProvider, ProviderError> {
    let base = opts
        .base_url
        .clone()
        .or_else(|| env("TOOLWRIGHT_BASE_URL"))
        .or_else(|| env("OPENAI_BASE_URL"))
        .unwrap_or_else(|| OPENAI_BASE_URL.to_string());
    let key = env("OPENAI_API_KEY");
    if key.is_none() && base == OPENAI_BASE_URL {
        return Err(ProviderError::Config(
            "the OpenAI provider needs OPENAI_API_KEY (or --base-url / TOOLWRIGHT_BASE_URL for a local server)".into(),
        ));
    }
    let model = opts
        .model
        .clone()
        .or_else(|| env("OPENAI_MODEL"))
        .unwrap_or_else(|| OPENAI_DEFAULT_MODEL.to_string());
    let mut cfg = OpenAiConfig::new(base, model);
    if let Some(k) = key {
        cfg = cfg.with_key(Secret::new(k));
    }
    OpenAiProvider::new(cfg)
}

fn anthropic(opts: &ProviderOptions) -> Result<AnthropicProvider, ProviderError> {
    let key = env("ANTHROPIC_API_KEY").ok_or_else(|| {
        ProviderError::Config("the Anthropic provider needs ANTHROPIC_API_KEY".into())
    })?;
    let model = opts
        .model
        .clone()
        .or_else(|| env("ANTHROPIC_MODEL"))
        .unwrap_or_else(|| ANTHROPIC_DEFAULT_MODEL.to_string());
    let mut cfg = AnthropicConfig::new(Secret::new(key), model);
    cfg.base_url = opts
        .base_url
        .clone()
        .or_else(|| env("ANTHROPIC_BASE_URL"))
        .unwrap_or_else(|| ANTHROPIC_BASE_URL.to_string());
    AnthropicProvider::new(cfg)
}

/// The GGUF file for the local provider: `--model PATH`, else `$TOOLWRIGHT_MODEL`, else the
/// fetched default.
///
/// # Errors
/// Nothing found: the message names `toolwright model fetch`.
pub fn local_model_path(opts: &ProviderOptions) -> Result<std::path::PathBuf, ProviderError> {
    if let Some(m) = &opts.model {
        let p = std::path::PathBuf::from(m);
        if !p.is_file() {
            return Err(ProviderError::Config(format!(
                "no GGUF model file at {}",
                p.display()
            )));
        }
        return Ok(p);
    }
    crate::model::find_model().ok_or_else(|| ProviderError::Config(missing_model_message()))
}

#[cfg(feature = "local")]
fn local(
    opts: &ProviderOptions,
) -> Result<Arc<crate::providers::local::LocalProvider>, ProviderError> {
    let path = local_model_path(opts)?;
    crate::providers::local::LocalProvider::new(crate::providers::local::LocalConfig::new(path))
        .map(Arc::new)
}

#[cfg(not(feature = "local"))]
fn no_local() -> ProviderError {
    ProviderError::Config(
        "this build has no embedded model (toolwright-agent feature `local`); set OPENAI_API_KEY, \
         ANTHROPIC_API_KEY or TOOLWRIGHT_BASE_URL"
            .into(),
    )
}

/// Builds the provider the options and environment select.
///
/// # Errors
/// A missing key or model (with the command or variable to fix it), or a client that cannot
/// be built.
pub fn build_provider(opts: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    match select_kind(opts) {
        ProviderKind::OpenAi => Ok(Arc::new(openai(opts)?)),
        ProviderKind::Anthropic => Ok(Arc::new(anthropic(opts)?)),
        #[cfg(feature = "local")]
        ProviderKind::Local => Ok(local(opts)?),
        #[cfg(not(feature = "local"))]
        ProviderKind::Local => Err(no_local()),
        ProviderKind::Prompted => {
            let remote = opts.base_url.is_some()
                || env("TOOLWRIGHT_BASE_URL").is_some()
                || env("OPENAI_API_KEY").is_some();
            if remote {
                return Ok(Arc::new(PromptedProvider::new(openai(opts)?)));
            }
            #[cfg(feature = "local")]
            {
                let p = local(opts)?;
                Ok(Arc::new(PromptedProvider::new(
                    crate::providers::local::LocalChat(p),
                )))
            }
            #[cfg(not(feature = "local"))]
            Err(no_local())
        }
    }
}
