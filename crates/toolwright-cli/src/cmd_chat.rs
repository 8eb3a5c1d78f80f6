//! `toolwright chat`: a REPL with the agent; the conversation is kept between requests.
//!
//! On a terminal the prompt has line editing and a history kept across sessions (rustyline):
//! the file is `--history FILE`, else `$TOOLWRIGHT_HISTORY`, else `chat_history` in
//! `$TOOLWRIGHT_HOME` or the platform's data directory (`$XDG_DATA_HOME/toolwright`,
//! `~/.local/share/toolwright`; `~/Library/Application Support/toolwright` on macOS,
//! `%APPDATA%\toolwright` on Windows); `--no-history` keeps none. Piped input is read line by
//! line, with no editing and no history.

use crate::Global;
use crate::cmd_run::{AgentArgs, Progress, build_agent, print_outcome};
use crate::usage_error;
use clap::Args;
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines, Stdin};

/// `chat` arguments.
#[derive(Args, Debug)]
pub struct ChatArgs {
    #[command(flatten)]
    pub agent: AgentArgs,
    /// The history file of the terminal prompt [default: chat_history in $TOOLWRIGHT_HOME or
    /// the platform's data directory].
    #[arg(long, value_name = "FILE", env = "TOOLWRIGHT_HISTORY")]
    pub history: Option<PathBuf>,
    /// Keep no history of the terminal prompt (whatever --history or $TOOLWRIGHT_HISTORY say).
    #[arg(long)]
    pub no_history: bool,
}

/// The platform's data directory for toolwright (see the module docs).
fn data_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(home) = var("TOOLWRIGHT_HOME") {
        return Some(home);
    }
    if cfg!(windows) {
        return var("APPDATA").map(|d| d.join("toolwright"));
    }
    if let Some(d) = var("XDG_DATA_HOME") {
        return Some(d.join("toolwright"));
    }
    let home = var("HOME")?;
    if cfg!(target_os = "macos") {
        return Some(home.join("Library/Application Support/toolwright"));
    }
    Some(home.join(".local/share/toolwright"))
}

/// The history file in use, if any.
fn history_file(args: &ChatArgs) -> Option<PathBuf> {
    if args.no_history {
        return None;
    }
    args.history
        .clone()
        .filter(|p| !p.as_os_str().is_empty())
        .or_else(|| data_dir().map(|d| d.join("chat_history")))
}

/// Where the requests come from.
enum Input {
    /// A terminal: line editing and history.
    Terminal {
        editor: Box<DefaultEditor>,
        history: Option<PathBuf>,
    },
    /// Piped input: one request per line.
    Piped(Lines<BufReader<Stdin>>),
}

impl Input {
    fn open(args: &ChatArgs) -> Input {
        if std::io::stdin().is_terminal()
            && let Ok(mut editor) = DefaultEditor::new()
        {
            let history = history_file(args);
            if let Some(p) = &history {
                // A missing file is the first session; an unreadable one starts empty.
                let _ = editor.load_history(p);
            }
            return Input::Terminal {
                editor: Box::new(editor),
                history,
            };
        }
        Input::Piped(BufReader::new(tokio::io::stdin()).lines())
    }

    /// The next line; `None` at the end of input.
    async fn next(&mut self) -> Result<Option<String>, String> {
        match self {
            Input::Terminal { editor, history } => {
                let read = tokio::task::block_in_place(|| editor.readline("> "));
                match read {
                    Ok(line) => {
                        if !line.trim().is_empty() {
                            let _ = editor.add_history_entry(line.as_str());
                            if let Some(p) = history {
                                save_history(editor, p);
                            }
                        }
                        Ok(Some(line))
                    }
                    // Ctrl-C drops the line being typed; Ctrl-D quits.
                    Err(ReadlineError::Interrupted) => Ok(Some(String::new())),
                    Err(ReadlineError::Eof) => Ok(None),
                    Err(e) => Err(e.to_string()),
                }
            }
            Input::Piped(lines) => {
                let mut stderr = tokio::io::stderr();
                let _ = stderr.write_all(b"> ").await;
                let _ = stderr.flush().await;
                lines.next_line().await.map_err(|e| e.to_string())
            }
        }
    }
}

/// Saves the history after each request, so that a session that is killed keeps it. A
/// history that cannot be written is reported once per request and the chat goes on.
fn save_history(editor: &mut DefaultEditor, path: &std::path::Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = editor.save_history(path) {
        eprintln!(
            "toolwright: cannot save the history to {}: {e}",
            path.display()
        );
    }
}

/// Runs `chat`: one request per line; `/reset` forgets the conversation, `/exit` (or end of
/// input) quits.
pub async fn run(args: ChatArgs, global: &Global) -> i32 {
    let progress = Arc::new(Progress::new());
    let mut agent = match build_agent(&args.agent, global, Some(progress.clone())).await {
        Ok(a) => a,
        Err(e) => return usage_error(&e),
    };
    eprintln!("toolwright chat — one request per line; /reset forgets, /exit quits.");
    let mut input = Input::open(&args);
    loop {
        let line = match input.next().await {
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
        // Before the answer and the next prompt: no spinner left turning over them.
        progress.stop();
        let _ = print_outcome(&trace);
    }
}
