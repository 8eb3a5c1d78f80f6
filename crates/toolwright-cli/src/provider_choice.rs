//! Choosing a provider from flags and the environment, the way `toolwright run`, `chat`, `eval`
//! and `ui` do (one set of flags, [`ProviderArgs`], each with its variable):
//! explicit `--provider` / `--base-url` / `--model` first (or `TOOLWRIGHT_PROVIDER`,
//! `TOOLWRIGHT_BASE_URL`, `TOOLWRIGHT_MODEL`); else `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`;
//! else the embedded model (`toolwright-local`).
//!
//! This is the CLI's business: the agent crate knows the wire providers but no flag, variable or
//! model file, and `toolwright-local` knows the model but not how a user picks it.

use clap::{Args, ValueEnum};
use std::sync::Arc;
#[cfg(any(feature = "openai", feature = "anthropic"))]
use toolwright_agent::Secret;
use toolwright_agent::providers::ToolChoice;
#[cfg(feature = "anthropic")]
use toolwright_agent::providers::anthropic::{
    ANTHROPIC_BASE_URL, ANTHROPIC_DEFAULT_MODEL, AnthropicConfig, AnthropicProvider,
};
#[cfg(feature = "openai")]
use toolwright_agent::providers::openai::{
    OPENAI_BASE_URL, OPENAI_DEFAULT_MODEL, OpenAiConfig, OpenAiProvider,
};
#[cfg(any(feature = "openai", feature = "local"))]
use toolwright_agent::providers::prompted::PromptedProvider;
use toolwright_agent::{Provider, ProviderError};
use toolwright_local::Summarizer;
#[cfg(feature = "local")]
use toolwright_local::{LocalChat, LocalConfig, LocalProvider};

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

/// Which provider to use.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderFlag {
    /// The embedded llama.cpp model.
    Local,
    /// An OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio...).
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Prompted JSON over a text-only model.
    Prompted,
}

/// The provider flags shared by `run`, `chat`, `eval` and `ui`; each has its environment
/// variable (shown by `--help`), so every command reads the same environment.
#[derive(Args, Debug, Clone, Default)]
pub struct ProviderArgs {
    /// The provider [default: OpenAI-compatible when a base URL or OPENAI_API_KEY is set, else
    /// Anthropic when ANTHROPIC_API_KEY is set, else the embedded model].
    #[arg(long, value_enum, env = "TOOLWRIGHT_PROVIDER")]
    pub provider: Option<ProviderFlag>,
    /// Model name [default: OPENAI_MODEL / ANTHROPIC_MODEL, else the provider's default], or a
    /// GGUF file, which selects the embedded model.
    #[arg(long, value_name = "M", env = "TOOLWRIGHT_MODEL")]
    pub model: Option<String>,
    /// Base URL of the provider's API, e.g. an OpenAI-compatible server such as
    /// http://127.0.0.1:11434/v1 [default for OpenAI: OPENAI_BASE_URL, else the OpenAI API].
    #[arg(long, value_name = "URL", env = "TOOLWRIGHT_BASE_URL")]
    pub base_url: Option<String>,
    /// API key of an OpenAI-compatible provider (prefer the variable: command lines are visible
    /// to other users of the machine).
    #[arg(
        long,
        value_name = "KEY",
        env = "OPENAI_API_KEY",
        hide_env_values = true
    )]
    pub openai_api_key: Option<String>,
    /// API key of Anthropic (prefer the variable).
    #[arg(
        long,
        value_name = "KEY",
        env = "ANTHROPIC_API_KEY",
        hide_env_values = true
    )]
    pub anthropic_api_key: Option<String>,
    /// OpenAI-compatible provider: `tool_choice`, one of auto, none, required or a tool's name
    /// (required and a name hold until a tool result follows the user's message).
    #[arg(
        long,
        value_name = "auto|none|required|TOOL",
        env = "TOOLWRIGHT_TOOL_CHOICE"
    )]
    pub tool_choice: Option<String>,
    /// OpenAI-compatible provider: never send strict schemas (`"strict": true` is sent when
    /// every offered tool is strict-compatible), for servers that reject the field.
    #[arg(long, env = "TOOLWRIGHT_NO_STRICT")]
    pub no_strict: bool,
}

impl ProviderArgs {
    /// The provider options for these flags.
    pub fn options(&self) -> ProviderOptions {
        let given = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(String::from)
        };
        ProviderOptions {
            kind: self.provider.map(|p| match p {
                ProviderFlag::Local => ProviderKind::Local,
                ProviderFlag::Openai => ProviderKind::OpenAi,
                ProviderFlag::Anthropic => ProviderKind::Anthropic,
                ProviderFlag::Prompted => ProviderKind::Prompted,
            }),
            model: given(&self.model),
            base_url: given(&self.base_url),
            openai_key: given(&self.openai_api_key),
            anthropic_key: given(&self.anthropic_api_key),
            summaries: None,
            tool_choice: given(&self.tool_choice).map(|c| {
                c.parse::<ToolChoice>()
                    .unwrap_or_else(|never| match never {})
            }),
            no_strict: self.no_strict,
        }
    }

    /// Builds the provider (a message for the user on failure). With `demo_tools`, the embedded
    /// model composes answers with the demo toolset's sentences ([`toolwright_demo::summarize`]).
    ///
    /// # Errors
    /// Missing key or model; the message says what to do.
    pub fn build(&self, demo_tools: bool) -> Result<Arc<dyn Provider>, String> {
        let mut opts = self.options();
        if demo_tools {
            opts.summaries = Some(Summarizer::new(toolwright_demo::summarize));
        }
        build_provider(&opts).map_err(|e| e.to_string())
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
    /// `--openai-api-key` (else `OPENAI_API_KEY`).
    pub openai_key: Option<String>,
    /// `--anthropic-api-key` (else `ANTHROPIC_API_KEY`).
    pub anthropic_key: Option<String>,
    /// Sentences for the results of known tools, for the embedded model's composed answers
    /// (the demo toolset's when it is in use).
    pub summaries: Option<Summarizer>,
    /// `--tool-choice` (OpenAI-compatible provider only).
    pub tool_choice: Option<ToolChoice>,
    /// `--no-strict`.
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub no_strict: bool,
}

/// The message when nothing is configured and the embedded model is missing.
#[cfg(feature = "local")]
pub fn missing_model_message() -> String {
    format!(
        "no model available: run `{}` to download the embedded model (about 100 MB), or set \
         OPENAI_API_KEY, ANTHROPIC_API_KEY or TOOLWRIGHT_BASE_URL",
        toolwright_local::model::FETCH_COMMAND
    )
}

/// The message when nothing is configured and this build has no embedded model.
#[cfg(not(feature = "local"))]
pub fn missing_model_message() -> String {
    no_local()
}

/// What a build without the `local` feature says when the embedded model is asked for.
#[cfg(not(feature = "local"))]
fn no_local() -> String {
    let remote = match (cfg!(feature = "openai"), cfg!(feature = "anthropic")) {
        (true, true) => "set OPENAI_API_KEY, ANTHROPIC_API_KEY or TOOLWRIGHT_BASE_URL, or ",
        (true, false) => "set OPENAI_API_KEY or TOOLWRIGHT_BASE_URL, or ",
        (false, true) => "set ANTHROPIC_API_KEY, or ",
        (false, false) => "",
    };
    format!(
        "this toolwright was built without the embedded model (cargo feature `local`): {remote}\
         install it with the default features (`cargo install --path crates/toolwright-cli`) or \
         `--features local`"
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
    if remote_openai(opts) {
        return ProviderKind::OpenAi;
    }
    if anthropic_key(opts).is_some() {
        return ProviderKind::Anthropic;
    }
    ProviderKind::Local
}

fn openai_key(opts: &ProviderOptions) -> Option<String> {
    opts.openai_key.clone().or_else(|| env("OPENAI_API_KEY"))
}

fn anthropic_key(opts: &ProviderOptions) -> Option<String> {
    opts.anthropic_key
        .clone()
        .or_else(|| env("ANTHROPIC_API_KEY"))
}

/// Whether an OpenAI-compatible endpoint is configured (a base URL or an OpenAI key).
fn remote_openai(opts: &ProviderOptions) -> bool {
    opts.base_url.is_some() || env("TOOLWRIGHT_BASE_URL").is_some() || openai_key(opts).is_some()
}

/// What a build without a provider's cargo feature says when that provider is asked for (an
/// API key in the environment asks for it too).
#[cfg(not(all(feature = "openai", feature = "anthropic")))]
fn missing_provider(name: &str, feature: &str) -> ProviderError {
    ProviderError::Config(format!(
        "this toolwright was built without the {name} provider (cargo feature `{feature}`): \
         install it with `cargo install --path crates/toolwright-cli --features {feature}` \
         (or the default features), or pick another provider with --provider"
    ))
}

#[cfg(not(feature = "openai"))]
fn openai(_: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    Err(missing_provider("OpenAI-compatible", "openai"))
}

#[cfg(not(feature = "anthropic"))]
fn anthropic(_: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    Err(missing_provider("Anthropic", "anthropic"))
}

#[cfg(not(feature = "openai"))]
fn openai_prompted(opts: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    openai(opts)
}

#[cfg(feature = "openai")]
fn openai_prompted(opts: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    Ok(Arc::new(PromptedProvider::new(openai(opts)?)))
}

#[cfg(feature = "openai")]
fn openai(opts: &ProviderOptions) -> Result<OpenAiProvider, ProviderError> {
    let base = opts
        .base_url
        .clone()
        .or_else(|| env("TOOLWRIGHT_BASE_URL"))
        .or_else(|| env("OPENAI_BASE_URL"))
        .unwrap_or_else(|| OPENAI_BASE_URL.to_string());
    let key = openai_key(opts);
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
    let mut cfg = OpenAiConfig::new(base, model).with_strict(!opts.no_strict);
    cfg.tool_choice = opts.tool_choice.clone();
    if let Some(k) = key {
        cfg = cfg.with_key(Secret::new(k));
    }
    OpenAiProvider::new(cfg)
}

#[cfg(feature = "anthropic")]
fn anthropic(opts: &ProviderOptions) -> Result<AnthropicProvider, ProviderError> {
    let key = anthropic_key(opts).ok_or_else(|| {
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
#[cfg(feature = "local")]
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
    toolwright_local::model::find_model()
        .ok_or_else(|| ProviderError::Config(missing_model_message()))
}

#[cfg(feature = "local")]
fn local(opts: &ProviderOptions) -> Result<Arc<LocalProvider>, ProviderError> {
    let mut config = LocalConfig::new(local_model_path(opts)?);
    config.summaries = opts.summaries.clone();
    LocalProvider::new(config).map(Arc::new)
}

#[cfg(feature = "local")]
fn local_prompted(opts: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    Ok(Arc::new(PromptedProvider::new(LocalChat(local(opts)?))))
}

#[cfg(not(feature = "local"))]
fn local(_: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    Err(ProviderError::Config(no_local()))
}

#[cfg(not(feature = "local"))]
fn local_prompted(opts: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    local(opts)
}

/// Builds the provider the options and environment select.
///
/// # Errors
/// A missing key or model (with the command or variable to fix it), or a client that cannot
/// be built.
pub fn build_provider(opts: &ProviderOptions) -> Result<Arc<dyn Provider>, ProviderError> {
    let kind = select_kind(opts);
    if opts.tool_choice.is_some() && kind != ProviderKind::OpenAi {
        return Err(ProviderError::Config(format!(
            "--tool-choice applies to the OpenAI-compatible provider only (this run uses {kind:?}); \
             set --provider openai with --base-url or OPENAI_API_KEY"
        )));
    }
    match kind {
        #[cfg(feature = "openai")]
        ProviderKind::OpenAi => Ok(Arc::new(openai(opts)?)),
        #[cfg(not(feature = "openai"))]
        ProviderKind::OpenAi => openai(opts),
        #[cfg(feature = "anthropic")]
        ProviderKind::Anthropic => Ok(Arc::new(anthropic(opts)?)),
        #[cfg(not(feature = "anthropic"))]
        ProviderKind::Anthropic => anthropic(opts),
        ProviderKind::Local => Ok(local(opts)?),
        ProviderKind::Prompted => {
            if remote_openai(opts) {
                return openai_prompted(opts);
            }
            local_prompted(opts)
        }
    }
}
