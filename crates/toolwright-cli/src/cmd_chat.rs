//! `toolwright chat`: a REPL with the agent; the conversation is kept between requests.

use crate::Global;
use crate::cmd_run::{AgentArgs, Progress, build_agent, print_outcome};
use crate::usage_error;
use clap::Args;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// `chat` arguments.
#[derive(Args, Debug)]
pub struct ChatArgs {
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Runs `chat`: one request per line; `/reset` forgets the conversation, `/exit` (or end of
/// input) quits.
pub async fn run(args: ChatArgs, global: &Global) -> i32 {
    let mut agent = match build_agent(&args.agent, global, Some(Arc::new(Progress::new()))).await {
        Ok(a) => a,
        Err(e) => return usage_error(&e),
    };
    eprintln!("toolwright chat — one request per line; /reset forgets, /exit quits.");
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stderr = tokio::io::stderr();
    loop {
        let _ = stderr.write_all(b"> ").await;
        let _ = stderr.flush().await;
        let line = match lines.next_line().await {
            Ok(Some(l)) => l,
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("toolwright: cannot read input: {e}");
                return 1;
            }
        };
        let q = line.trim();
        match q {
            "" => continue,
            "/exit" | "/quit" => return 0,
            "/reset" => {
                agent.reset();
                eprintln!("(conversation cleared)");
                continue;
            }
            _ => {}
        }
        let trace = agent.run_trace(q).await;
        let _ = print_outcome(&trace);
    }
}
