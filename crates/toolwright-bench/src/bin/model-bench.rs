//! Prompt and generation speed of the embedded model through toolwright, next to llama.cpp's own
//! figures for the same model, prompt, context and threads: `model-bench [GGUF] [--json]`.
//!
//! - toolwright: `LocalProvider::chat` (what the agent runs: chat template, a fresh context per
//!   request, greedy sampling). Timed from outside: a request generating one token gives the
//!   prompt rate (prompt tokens ÷ time); a request generating up to 64 gives the generation rate
//!   ((tokens − 1) ÷ (time − time of the one-token request)).
//! - llama.cpp: the same steps written directly against `llama-cpp-2`, with llama.cpp's own
//!   performance counters (`llama_perf_context`: prompt eval and eval time and token counts).
//!
//! Each figure is the median of 3 runs after a warm-up. Threads: `TOOLWRIGHT_THREADS` (default
//! 1, as the agent uses).

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use serde_json::json;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use toolwright_local::{LocalConfig, LocalProvider};

const GEN_TOKENS: usize = 64;
const RUNS: usize = 3;

fn messages() -> Vec<(String, String)> {
    let system = "You are a helpful assistant for a travel company. You can look up weather \
        forecasts, convert currencies with a dated rates table, search files in a sandbox, read \
        files, calculate expressions and query the staff directory. Answer in full sentences, \
        cite the date of any rate you use, and say which tool gave you each number. When a \
        request is ambiguous, ask one short question. Never invent data that a tool did not \
        return. Keep answers under two hundred words unless the user asks for more detail.";
    let user = "Write a long, detailed story about a lighthouse keeper who finds a message in a \
        bottle, describing the sea, the weather and the town in many sentences.";
    vec![
        ("system".to_string(), system.to_string()),
        ("user".to_string(), user.to_string()),
    ]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

struct Rates {
    prompt_tokens: u64,
    prompt_tps: f64,
    gen_tokens: u64,
    gen_tps: f64,
}

async fn through_toolwright(path: &std::path::Path) -> Result<Rates, String> {
    let provider = LocalProvider::new(LocalConfig::new(path)).map_err(|e| e.to_string())?;
    provider
        .chat(messages(), 4)
        .await
        .map_err(|e| e.to_string())?;
    let mut one = Vec::new();
    let mut many = Vec::new();
    let mut prompt_tokens = 0;
    let mut gen_tokens = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let (_, u) = provider
            .chat(messages(), 1)
            .await
            .map_err(|e| e.to_string())?;
        one.push(t.elapsed().as_secs_f64());
        prompt_tokens = u.input_tokens;
        let t = Instant::now();
        let (_, u) = provider
            .chat(messages(), GEN_TOKENS)
            .await
            .map_err(|e| e.to_string())?;
        many.push(t.elapsed().as_secs_f64());
        gen_tokens = u.output_tokens;
    }
    let (t1, tn) = (median(one), median(many));
    Ok(Rates {
        prompt_tokens,
        prompt_tps: prompt_tokens as f64 / t1,
        gen_tokens,
        gen_tps: (gen_tokens.saturating_sub(1)) as f64 / (tn - t1).max(1e-9),
    })
}

fn direct_llama(path: &std::path::Path, threads: i32) -> Result<Rates, String> {
    let e = |what: &str| {
        let what = what.to_string();
        move |err: &dyn std::fmt::Display| format!("{what}: {err}")
    };
    let backend = LlamaBackend::init().map_err(|x| e("backend")(&x))?;
    let model = LlamaModel::load_from_file(&backend, path, &LlamaModelParams::default())
        .map_err(|x| e("load")(&x))?;
    let template = match model.chat_template(None) {
        Ok(t) => t,
        Err(_) => LlamaChatTemplate::new("chatml").map_err(|x| e("template")(&x))?,
    };
    let chat: Vec<LlamaChatMessage> = messages()
        .into_iter()
        .map(|(r, c)| LlamaChatMessage::new(r, c))
        .collect::<Result<_, _>>()
        .map_err(|x| e("message")(&x))?;
    let prompt = model
        .apply_chat_template(&template, &chat, true)
        .map_err(|x| e("apply template")(&x))?;
    let vocab = model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
    let mut p_rates = Vec::new();
    let mut g_rates = Vec::new();
    let mut n_p = 0;
    let mut n_g = 0;
    for run in 0..=RUNS {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(4096))
            .with_n_batch(512)
            .with_n_ubatch(512)
            .with_n_threads(threads)
            .with_n_threads_batch(threads)
            .with_no_perf(false);
        let mut ctx = model
            .new_context(&backend, params)
            .map_err(|x| e("context")(&x))?;
        let mut batch = LlamaBatch::new(512, 1);
        let last = tokens.len().saturating_sub(1);
        for (i, t) in tokens.iter().enumerate() {
            let pos = i32::try_from(i).map_err(|x| e("pos")(&x))?;
            batch
                .add(*t, pos, &[0], i == last)
                .map_err(|x| e("batch")(&x))?;
        }
        ctx.decode(&mut batch).map_err(|x| e("decode")(&x))?;
        let mut sampler = LlamaSampler::greedy();
        let mut idx = batch.n_tokens() - 1;
        for n_cur in tokens.len()..tokens.len() + GEN_TOKENS {
            let token = sampler.sample(&ctx, idx);
            if vocab.is_eog(token) {
                break;
            }
            batch.clear();
            let pos = i32::try_from(n_cur).map_err(|x| e("pos")(&x))?;
            batch
                .add(token, pos, &[0], true)
                .map_err(|x| e("batch")(&x))?;
            ctx.decode(&mut batch).map_err(|x| e("decode")(&x))?;
            idx = 0;
        }
        let t = ctx.timings();
        if run == 0 {
            continue; // warm-up
        }
        n_p = t.n_p_eval();
        n_g = t.n_eval();
        p_rates.push(f64::from(t.n_p_eval()) / (t.t_p_eval_ms() / 1000.0));
        g_rates.push(f64::from(t.n_eval()) / (t.t_eval_ms() / 1000.0));
    }
    Ok(Rates {
        prompt_tokens: u64::try_from(n_p).unwrap_or(0),
        prompt_tps: median(p_rates),
        gen_tokens: u64::try_from(n_g).unwrap_or(0),
        gen_tps: median(g_rates),
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let as_json = args.iter().any(|a| a == "--json");
    let path = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .or_else(toolwright_local::model::find_model);
    let Some(path) = path else {
        eprintln!("model-bench: no model; run `toolwright model fetch` or pass a GGUF path");
        return ExitCode::from(2);
    };
    let threads = LocalConfig::new(&path).threads;
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("model-bench: {e}");
            return ExitCode::from(1);
        }
    };
    llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
    // llama.cpp's backend can be initialized once at a time: the direct run first (its backend
    // is dropped when it returns), then the agent's provider.
    let ll = match direct_llama(&path, threads) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("model-bench: llama.cpp: {e}");
            return ExitCode::from(1);
        }
    };
    let tw = match rt.block_on(through_toolwright(&path)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("model-bench: through toolwright: {e}");
            return ExitCode::from(1);
        }
    };
    let out = json!({
        "model": path.file_name().map(|f| f.to_string_lossy().into_owned()),
        "threads": threads,
        "prompt_tokens": tw.prompt_tokens,
        "toolwright": {"prompt_tps": tw.prompt_tps, "gen_tps": tw.gen_tps, "gen_tokens": tw.gen_tokens},
        "llama_cpp": {"prompt_tps": ll.prompt_tps, "gen_tps": ll.gen_tps, "gen_tokens": ll.gen_tokens,
                      "prompt_tokens": ll.prompt_tokens},
        "prompt_ratio": tw.prompt_tps / ll.prompt_tps,
        "gen_ratio": tw.gen_tps / ll.gen_tps,
        "note": "toolwright: LocalProvider::chat timed from outside (fresh context per request, as the agent runs it); llama.cpp: llama_perf_context counters",
    });
    if as_json {
        println!("{out}");
    } else {
        println!(
            "threads {threads}, prompt {} tokens\nprompt:     toolwright {:.0} tok/s, llama.cpp {:.0} tok/s (ratio {:.2})\ngeneration: toolwright {:.1} tok/s, llama.cpp {:.1} tok/s (ratio {:.2})",
            tw.prompt_tokens,
            tw.prompt_tps,
            ll.prompt_tps,
            tw.prompt_tps / ll.prompt_tps,
            tw.gen_tps,
            ll.gen_tps,
            tw.gen_tps / ll.gen_tps
        );
    }
    ExitCode::SUCCESS
}
