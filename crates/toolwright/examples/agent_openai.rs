//! A tool and an agent over an OpenAI-compatible server (OpenAI, vLLM, llama.cpp's server,
//! Ollama...): `TOOLWRIGHT_BASE_URL` (up to `/v1`), `OPENAI_API_KEY` and `TOOLWRIGHT_MODEL_NAME`.
//!
//! `TOOLWRIGHT_BASE_URL=http://127.0.0.1:8080/v1 cargo run -p toolwright --features agent
//! --example agent_openai -- "What is 12.5 plus 30?"`

use futures::StreamExt;
use toolwright::agent::AgentStreamEvent;
use toolwright::agent::providers::openai::{OpenAiConfig, OpenAiProvider};
use toolwright::prelude::*;

/// Add two numbers.
///
/// Use this when the user asks for a sum.
///
/// # Arguments
/// * `a` - The first number
/// * `b` - The second number
#[tool(side_effects = "none")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Ok(base_url) = std::env::var("TOOLWRIGHT_BASE_URL") else {
        eprintln!("set TOOLWRIGHT_BASE_URL (and OPENAI_API_KEY if the server needs one)");
        return Ok(());
    };
    let model = std::env::var("TOOLWRIGHT_MODEL_NAME").unwrap_or_else(|_| "gpt-4o-mini".into());
    let mut config = OpenAiConfig::new(base_url, model);
    config.api_key = std::env::var("OPENAI_API_KEY")
        .ok()
        .map(toolwright::agent::Secret::new);
    let tools = Registry::new();
    tools.register(AddTool)?;
    let mut agent = Agent::builder(OpenAiProvider::new(config)?)
        .tools(tools)
        .max_steps(4)
        .build();
    let query = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is 12.5 plus 30?".into());
    let mut events = Box::pin(agent.run_stream(&query));
    while let Some(event) = events.next().await {
        match event {
            AgentStreamEvent::CallFinished(record) => {
                println!("{} -> {:?}", record.call.name, record.envelope.status())
            }
            AgentStreamEvent::Done(Ok(answer)) => println!("{}", answer.text),
            AgentStreamEvent::Done(Err(e)) => eprintln!("no answer: {e}"),
            _ => {}
        }
    }
    Ok(())
}
