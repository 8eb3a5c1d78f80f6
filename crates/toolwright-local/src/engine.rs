//! The llama.cpp engine: one GGUF model loaded once, and greedy generation from chat messages,
//! optionally under a GBNF grammar. [`crate::LocalProvider`] decides what to ask; this module
//! only runs the model.
//!
//! Decoding is greedy with 1 thread by default: on a loaded 2-core machine, 2 threads made
//! llama.cpp spin-wait and collapse.

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::OnceLock;
use toolwright_agent::{ProviderError, Usage};

fn backend() -> Result<&'static LlamaBackend, ProviderError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| ProviderError::Model(format!("cannot start llama.cpp: {e}")))
}

pub(crate) struct Engine {
    model: LlamaModel,
    template: LlamaChatTemplate,
    threads: i32,
    context: u32,
    /// One generation at a time per model: creating contexts concurrently is not sound in
    /// llama.cpp (it may adjust the model's parameters), and 2 cores gain nothing from it.
    busy: std::sync::Mutex<()>,
}

/// Text the model generated, with token counts.
pub(crate) struct Generation {
    pub(crate) text: String,
    pub(crate) usage: Usage,
}

impl Engine {
    /// Loads the GGUF file at `path`; `threads` and `context` (tokens) are raised to at least 1
    /// and 512.
    pub(crate) fn load(path: &Path, threads: i32, context: u32) -> Result<Engine, ProviderError> {
        if !path.is_file() {
            return Err(ProviderError::Config(format!(
                "no model file at {}; run `{}`",
                path.display(),
                crate::model::FETCH_COMMAND
            )));
        }
        let backend = backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| ProviderError::Model(format!("cannot load {}: {e}", path.display())))?;
        let template = match model.chat_template(None) {
            Ok(t) => t,
            Err(_) => LlamaChatTemplate::new("chatml")
                .map_err(|e| ProviderError::Model(format!("chat template: {e}")))?,
        };
        Ok(Engine {
            model,
            template,
            threads: threads.max(1),
            context: context.max(512),
            busy: std::sync::Mutex::new(()),
        })
    }

    /// Generates a reply to `messages` (role, content), greedy, under `grammar` when given.
    pub(crate) fn generate(
        &self,
        messages: &[(String, String)],
        grammar: Option<&str>,
        max_tokens: usize,
        one_line: bool,
    ) -> Result<Generation, ProviderError> {
        let _busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        let (generation, _) = self.run(messages, grammar, max_tokens, one_line)?;
        Ok(generation)
    }

    /// [`Engine::generate`] under `grammar`, then, on the same evaluation of the prompt and the
    /// reply, the branches `branches` builds from the reply's text: each branch's prefix must
    /// be a beginning of that text. Returns the generation and, for each branch, the summed
    /// log-probability of each continuation after its prefix, without evaluating the prompt
    /// again.
    pub(crate) fn generate_scored(
        &self,
        messages: &[(String, String)],
        grammar: &str,
        max_tokens: usize,
        branches: impl FnOnce(&str) -> Vec<Branches>,
    ) -> Result<(Generation, Result<BranchScores, ProviderError>), ProviderError> {
        let _busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        let (generation, mut run) = self.run(messages, Some(grammar), max_tokens, false)?;
        let branches = branches(&generation.text);
        let scores = self.score_branches(&mut run, &generation.text, &branches);
        Ok((generation, scores))
    }

    fn score_branches(
        &self,
        run: &mut Run<'_>,
        reply: &str,
        branches: &[Branches],
    ) -> Result<BranchScores, ProviderError> {
        let vocab = self.model.vocab();
        let tokenize = |t: &str| vocab.tokenize(t.as_bytes(), false, false);
        let budget = usize::try_from(self.context).unwrap_or(usize::MAX);
        let mut out = Vec::with_capacity(branches.len());
        for b in branches {
            if !reply.starts_with(&b.prefix) || b.prefix.is_empty() {
                return Err(model_err(
                    "scoring",
                    &"a branch's prefix is not a beginning of the reply",
                ));
            }
            let prefix = tokenize(&b.prefix);
            let texts: Vec<Vec<LlamaToken>> = b.continuations.iter().map(|c| tokenize(c)).collect();
            let longest = texts.iter().map(Vec::len).max().unwrap_or(0);
            if run.n_prompt + prefix.len() + longest > budget || prefix.len() > 512 || longest > 256
            {
                return Err(model_err(
                    "scoring",
                    &"the continuations do not fit the context",
                ));
            }
            let (first, base) = run.seek(&prefix)?;
            let mut score = |text: &Vec<LlamaToken>| {
                score_continuation(&mut run.ctx, &mut run.batch, &first, text, base).map(|lp| {
                    Scored {
                        logprob: lp,
                        tokens: text.len(),
                    }
                })
            };
            let reference = match b.bound.and_then(|(r, m)| Some((r, m, texts.get(r)?))) {
                Some((r, margin, text)) => Some((r, score(text)?, margin)),
                None => None,
            };
            let mut scores = Vec::with_capacity(texts.len());
            for (i, text) in texts.iter().enumerate() {
                // A text's summed log-probability is at most its first token's.
                let head = text.first().and_then(|t| first.get(index(*t))).copied();
                scores.push(match reference {
                    Some((r, s, _)) if r == i => Some(s),
                    Some((_, s, margin)) if head.is_some_and(|h| h <= s.logprob + margin) => None,
                    _ => Some(score(text)?),
                });
            }
            out.push(scores);
        }
        Ok(out)
    }

    /// The greedy generation itself; the caller holds `busy`. Returns the text and the
    /// evaluation it was made on.
    fn run(
        &self,
        messages: &[(String, String)],
        grammar: Option<&str>,
        max_tokens: usize,
        one_line: bool,
    ) -> Result<(Generation, Run<'_>), ProviderError> {
        let tokens = self.prompt_tokens(messages)?;
        let n_prompt = tokens.len();
        let budget = usize::try_from(self.context).unwrap_or(usize::MAX);
        if n_prompt + max_tokens > budget {
            return Err(ProviderError::Model(format!(
                "the prompt has {n_prompt} tokens; with {max_tokens} to generate it does not fit the context of {budget}"
            )));
        }
        let mut ctx = self.new_context()?;
        let mut batch = LlamaBatch::new(512, 1);
        decode_at(&mut ctx, &mut batch, &tokens, 0)?;
        let vocab = self.model.vocab();
        let mut grammar = match grammar {
            Some(g) => Some(
                LlamaSampler::grammar(&self.model, g, "root")
                    .map_err(|e| model_err("grammar", &e))?,
            ),
            None => None,
        };
        let mut out: Vec<u8> = Vec::new();
        let mut n_cur = n_prompt;
        let mut idx = batch.n_tokens() - 1;
        let mut generated = 0usize;
        while generated < max_tokens {
            let token = next_token(&ctx, idx, grammar.as_mut());
            if vocab.is_eog(token) {
                break;
            }
            let piece = vocab.token_to_piece(token, false, None);
            generated += 1;
            // A one-line answer ends at its first line break once there is some text.
            if one_line && piece.contains(&b'\n') && out.iter().any(|b| !b.is_ascii_whitespace()) {
                if let Some(cut) = piece.iter().position(|b| *b == b'\n') {
                    out.extend(piece.get(..cut).unwrap_or_default());
                }
                break;
            }
            out.extend(piece);
            // A constrained value that repeats itself will not close before the budget ends.
            if grammar.is_some() && crate::salvage::ends_in_loop(&out) {
                break;
            }
            batch.clear();
            let p = i32::try_from(n_cur).map_err(|e| model_err("position", &e))?;
            batch
                .add(token, p, &[0], true)
                .map_err(|e| model_err("batch", &e))?;
            n_cur += 1;
            ctx.decode(&mut batch)
                .map_err(|e| model_err("decode", &e))?;
            idx = 0;
        }
        let generation = Generation {
            text: String::from_utf8_lossy(&out).trim().to_string(),
            usage: Usage {
                input_tokens: n_prompt as u64,
                output_tokens: generated as u64,
            },
        };
        Ok((
            generation,
            Run {
                ctx,
                batch,
                n_prompt,
            },
        ))
    }
}

/// A prompt and a reply as evaluated by [`Engine::run`]: the context holds the prompt, and
/// the reply's tokens until scoring cuts them back.
struct Run<'m> {
    ctx: llama_cpp_2::context::LlamaContext<'m>,
    batch: LlamaBatch<'static>,
    n_prompt: usize,
}

impl Run<'_> {
    /// Cuts the context back to the prompt and decodes `prefix` (not empty) on top of it: the
    /// reply's own beginning, tokenized afresh as the text it is. Returns the log-probabilities
    /// of the next token and the position after the prefix.
    fn seek(&mut self, prefix: &[LlamaToken]) -> Result<(Vec<f32>, u32), ProviderError> {
        let p = u32::try_from(self.n_prompt).map_err(|e| model_err("position", &e))?;
        self.ctx
            .clear_kv_cache_seq(Some(0), Some(p), None)
            .map_err(|e| model_err("cache", &e))?;
        decode_at(&mut self.ctx, &mut self.batch, prefix, self.n_prompt)?;
        let first = log_softmax(self.ctx.get_logits_ith(self.batch.n_tokens() - 1));
        let base =
            u32::try_from(self.n_prompt + prefix.len()).map_err(|e| model_err("position", &e))?;
        Ok((first, base))
    }
}

impl Engine {
    /// `messages` (role, content) in the model's chat template, the assistant's turn opened,
    /// as tokens (never empty).
    fn prompt_tokens(
        &self,
        messages: &[(String, String)],
    ) -> Result<Vec<LlamaToken>, ProviderError> {
        let chat: Vec<LlamaChatMessage> = messages
            .iter()
            .map(|(r, c)| LlamaChatMessage::new(r.clone(), c.replace('\0', " ")))
            .collect::<Result<_, _>>()
            .map_err(|e| model_err("message", &e))?;
        // The model's own template; llama.cpp's template engine knows the common ones by their
        // text. An unknown one falls back to ChatML rather than failing.
        let prompt = match self.model.apply_chat_template(&self.template, &chat, true) {
            Ok(p) => p,
            Err(first) => {
                let chatml =
                    LlamaChatTemplate::new("chatml").map_err(|e| model_err("chat template", &e))?;
                self.model
                    .apply_chat_template(&chatml, &chat, true)
                    .map_err(|e| model_err("chat template", &format!("{first}; ChatML: {e}")))?
            }
        };
        let tokens = self.model.vocab().tokenize(prompt.as_bytes(), true, true);
        if tokens.is_empty() {
            return Err(ProviderError::Model("the prompt is empty".to_string()));
        }
        Ok(tokens)
    }

    fn new_context(&self) -> Result<llama_cpp_2::context::LlamaContext<'_>, ProviderError> {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.context))
            .with_n_batch(512)
            .with_n_ubatch(512)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        self.model
            .new_context(backend()?, params)
            .map_err(|e| model_err("context", &e))
    }

    /// The log-probability the model gives each of `continuations` as the start of its reply to
    /// `messages` (summed over the continuation's tokens): one prompt evaluation, then each
    /// continuation scored on top of it. An empty continuation scores 0.
    pub(crate) fn continuation_logprobs(
        &self,
        messages: &[(String, String)],
        continuations: &[&str],
    ) -> Result<Vec<f32>, ProviderError> {
        let _busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        let tokens = self.prompt_tokens(messages)?;
        let vocab = self.model.vocab();
        let texts: Vec<Vec<LlamaToken>> = continuations
            .iter()
            .map(|c| vocab.tokenize(c.as_bytes(), false, false))
            .collect();
        let longest = texts.iter().map(Vec::len).max().unwrap_or(0);
        let budget = usize::try_from(self.context).unwrap_or(usize::MAX);
        if tokens.len() + longest > budget || longest > 512 {
            return Err(model_err(
                "scoring",
                &format!(
                    "{} prompt and {longest} continuation tokens do not fit",
                    tokens.len()
                ),
            ));
        }
        let mut ctx = self.new_context()?;
        let mut batch = LlamaBatch::new(512, 1);
        decode_at(&mut ctx, &mut batch, &tokens, 0)?;
        let after_prompt = log_softmax(ctx.get_logits_ith(batch.n_tokens() - 1));
        let n_prompt = u32::try_from(tokens.len()).map_err(|e| model_err("position", &e))?;
        let mut out = Vec::with_capacity(texts.len());
        for text in &texts {
            out.push(score_continuation(
                &mut ctx,
                &mut batch,
                &after_prompt,
                text,
                n_prompt,
            )?);
        }
        Ok(out)
    }
}

/// A reply begun with `prefix` and the texts it may go on with: [`Engine::generate_scored`].
pub(crate) struct Branches {
    /// The start of the assistant's reply, after the chat template's opening of its turn.
    pub(crate) prefix: String,
    /// The texts scored after `prefix`.
    pub(crate) continuations: Vec<String>,
    /// `Some((reference, margin))`: only texts that may score more than `margin` above
    /// `continuations[reference]` are scored; the others are `None`.
    pub(crate) bound: Option<(usize, f32)>,
}

/// For each branch, each continuation's score (`None`: left out by the branch's bound).
pub(crate) type BranchScores = Vec<Vec<Option<Scored>>>;

/// A continuation's summed log-probability and its number of tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub(crate) logprob: f32,
    pub(crate) tokens: usize,
}

/// Decodes `tokens` (not empty) from position `from` in chunks of the batch's size, logits on
/// the last only: `ctx.get_logits_ith(batch.n_tokens() - 1)` after it.
fn decode_at(
    ctx: &mut llama_cpp_2::context::LlamaContext<'_>,
    batch: &mut LlamaBatch,
    tokens: &[LlamaToken],
    from: usize,
) -> Result<(), ProviderError> {
    if tokens.is_empty() {
        return Err(model_err("decode", &"nothing to decode"));
    }
    let last = tokens.len() - 1;
    for (chunk_no, chunk) in tokens.chunks(512).enumerate() {
        batch.clear();
        for (j, t) in chunk.iter().enumerate() {
            let at = chunk_no * 512 + j;
            let p = i32::try_from(from + at).map_err(|e| model_err("position", &e))?;
            batch
                .add(*t, p, &[0], at == last)
                .map_err(|e| model_err("batch", &e))?;
        }
        ctx.decode(batch).map_err(|e| model_err("decode", &e))?;
    }
    Ok(())
}

fn model_err(what: &str, e: &dyn std::fmt::Display) -> ProviderError {
    ProviderError::Model(format!("{what}: {e}"))
}

/// The summed log-probability of `text` after a prompt of `n_prompt` tokens whose last position's
/// log-probabilities are `first`; the continuation's own cache entries are dropped after.
fn score_continuation(
    ctx: &mut llama_cpp_2::context::LlamaContext<'_>,
    batch: &mut LlamaBatch,
    first: &[f32],
    text: &[LlamaToken],
    n_prompt: u32,
) -> Result<f32, ProviderError> {
    let Some(head) = text.first() else {
        return Ok(0.0);
    };
    let mut total = first
        .get(index(*head))
        .copied()
        .unwrap_or(f32::NEG_INFINITY);
    let Some(rest) = text.get(1..).filter(|r| !r.is_empty()) else {
        return Ok(total);
    };
    batch.clear();
    // Every token but the last predicts the next one.
    for (j, t) in text.iter().take(text.len() - 1).enumerate() {
        let pos = i32::try_from(n_prompt as usize + j).map_err(|e| model_err("position", &e))?;
        batch
            .add(*t, pos, &[0], true)
            .map_err(|e| model_err("batch", &e))?;
    }
    ctx.decode(batch).map_err(|e| model_err("decode", &e))?;
    for (j, next) in rest.iter().enumerate() {
        let j = i32::try_from(j).map_err(|e| model_err("position", &e))?;
        let lp = log_softmax(ctx.get_logits_ith(j));
        total += lp.get(index(*next)).copied().unwrap_or(f32::NEG_INFINITY);
    }
    ctx.clear_kv_cache_seq(Some(0), Some(n_prompt), None)
        .map_err(|e| model_err("cache", &e))?;
    Ok(total)
}

/// `logits` as log-probabilities.
fn log_softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    let norm = max + sum.ln();
    logits.iter().map(|l| l - norm).collect()
}

/// The greedy next token at logits position `idx`, under `grammar` when given.
///
/// The grammar is asked about the unconstrained best token first, and masks the whole vocabulary
/// only when it rejects that token (llama.cpp's own `common` sampler does the same). The result
/// is the one masking first would give — greedy over the allowed tokens — but a step that the
/// grammar agrees with costs one check instead of one per vocabulary entry (49k for SmolLM2),
/// which is most of a constrained step's time on large tool grammars.
fn next_token(
    ctx: &llama_cpp_2::context::LlamaContext<'_>,
    idx: i32,
    grammar: Option<&mut LlamaSampler>,
) -> LlamaToken {
    let logits = ctx.get_logits_ith(idx);
    let best = first_max(logits.iter().copied());
    let Some(grammar) = grammar else {
        return best;
    };
    let logit = logits
        .get(index(best))
        .copied()
        .unwrap_or(f32::NEG_INFINITY);
    let mut one = LlamaTokenDataArray::new(vec![LlamaTokenData::new(best, logit, 0.0)], false);
    grammar.apply(&mut one);
    let token = if one.data.first().is_some_and(|d| d.logit().is_finite()) {
        best
    } else {
        let mut all = ctx.token_data_array_ith(idx);
        grammar.apply(&mut all);
        all.data
            .iter()
            .fold(None::<&LlamaTokenData>, |b, d| match b {
                Some(b) if d.logit() <= b.logit() => Some(b),
                _ => Some(d),
            })
            .map_or(best, LlamaTokenData::id)
    };
    grammar.accept(token);
    token
}

/// The first position of the largest finite value, as a token (llama.cpp's greedy rule: the
/// first of equal maxima wins).
fn first_max(values: impl Iterator<Item = f32>) -> LlamaToken {
    let mut best = (0usize, f32::NEG_INFINITY);
    for (i, v) in values.enumerate() {
        if v > best.1 {
            best = (i, v);
        }
    }
    LlamaToken::new(i32::try_from(best.0).unwrap_or(0))
}

fn index(token: LlamaToken) -> usize {
    usize::try_from(token.0).unwrap_or(usize::MAX)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
mod tests {
    use super::*;

    /// The embedded model, as `tests/local_model.rs` finds it.
    fn engine() -> Option<Engine> {
        let path = crate::model::find_model_or_skip().unwrap_or_else(|e| panic!("{e}"))?;
        Some(Engine::load(&path, 1, 2048).expect("the model loads"))
    }

    /// Scoring after a generated reply cuts the context back and forth: the same branch scored
    /// before and after another gives the same numbers, every score is a log-probability, and
    /// a bound leaves out only texts that could not have beaten it.
    #[test]
    fn scores_after_a_generated_reply_are_repeatable_and_bounded() {
        let Some(e) = engine() else { return };
        let messages = [
            ("system".to_string(), "Reply with JSON only.".to_string()),
            (
                "user".to_string(),
                "What is the weather in Paris, in celsius?".to_string(),
            ),
        ];
        let grammar = r#"root ::= "{\"city\": " ( "\"Paris\"" | "\"Lyon\"" ) ", \"unit\": " ( "\"C\"" | "\"F\"" ) "}""#;
        let cities: Vec<String> = [" \"Paris\"", " \"Lyon\"", " \"zebra crossing\""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let units: Vec<String> = [" \"C\"", " \"F\""].iter().map(|s| s.to_string()).collect();
        let (g, scores) = e
            .generate_scored(&messages, grammar, 32, |text| {
                let city = text.find(':').unwrap() + 1;
                let unit = text.rfind(':').unwrap() + 1;
                let branch = |end: usize, continuations: &Vec<String>, bound| Branches {
                    prefix: text[..end].to_string(),
                    continuations: continuations.clone(),
                    bound,
                };
                vec![
                    branch(city, &cities, None),
                    branch(unit, &units, None),
                    branch(city, &cities, Some((0, 0.0))),
                ]
            })
            .unwrap();
        assert!(g.text.starts_with("{\"city\": "), "{}", g.text);
        let s = scores.unwrap();
        let lp = |b: usize, i: usize| s[b][i].unwrap().logprob;
        for b in [0, 1] {
            assert!(s[b].iter().all(|x| x.unwrap().logprob <= 0.0), "{s:?}");
        }
        assert!(lp(0, 0) > lp(0, 2), "{s:?}");
        assert!((lp(2, 0) - lp(0, 0)).abs() < 1e-3, "{s:?}");
        for (i, x) in s[2].iter().enumerate() {
            match x {
                Some(x) => assert!((x.logprob - lp(0, i)).abs() < 1e-3, "{s:?}"),
                None => assert!(lp(0, i) <= lp(0, 0), "{s:?}"),
            }
        }
    }
}
