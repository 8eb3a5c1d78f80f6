//! A stdio MCP server's child process, started in a process group of its own.
//!
//! A `--mcp` command is often a launcher (`npx -y pkg`, `uvx pkg`, `sh -c …`) whose real server
//! is a grandchild. Killing the launcher alone leaves the server running after toolwright has
//! exited, holding its parent's output pipes open: a shell that waits on them hangs. So the
//! child leads a new process group, and everything that ends the connection reaches the whole
//! group:
//! - [`crate::McpConnection::close`] goes through rmcp's graceful shutdown (stdin closed, then
//!   `SIGTERM`, then `SIGKILL`, each after a wait), whose signals the group wrapper sends to
//!   the group;
//! - dropping the connection, or a handshake that fails or times out, drops a [`ChildGroup`],
//!   which sends `SIGTERM` to the group at once (a drop cannot wait).
//!
//! On other platforms the child is started as before (the launcher alone is killed).

use rmcp::transport::TokioChildProcess;

/// Ends a child's process group when dropped.
#[derive(Debug)]
pub(crate) struct ChildGroup {
    /// The group's id: the leader's process id. `None` off Unix.
    pgid: Option<u32>,
}

impl Drop for ChildGroup {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pgid) = self.pgid.take().and_then(|p| i32::try_from(p).ok()) {
            use nix::sys::signal::{Signal, killpg};
            // ESRCH: every process of the group has already exited.
            let _ = killpg(nix::unistd::Pid::from_raw(pgid), Signal::SIGTERM);
        }
    }
}

/// Starts `program args` as the leader of a new process group (on Unix), with its stdin and
/// stdout as the MCP transport.
///
/// # Errors
/// The program cannot be started.
pub(crate) fn spawn(
    program: &str,
    args: &[String],
) -> std::io::Result<(TokioChildProcess, ChildGroup)> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args).kill_on_drop(true);
    #[cfg(unix)]
    let cmd = {
        use process_wrap::tokio::{CommandWrap, ProcessGroup};
        let mut wrapped = CommandWrap::from(cmd);
        wrapped.wrap(ProcessGroup::leader());
        wrapped
    };
    let child = TokioChildProcess::new(cmd)?;
    let pgid = if cfg!(unix) { child.id() } else { None };
    Ok((child, ChildGroup { pgid }))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Whether a process with this id still runs (not a zombie).
    fn alive(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false)
    }

    /// Starts a launcher whose grandchild ignores stdin EOF (as `npx` starting a server that
    /// keeps a connection to a database open); returns the grandchild's process id.
    async fn launcher(tag: &str) -> std::io::Result<(TokioChildProcess, ChildGroup, i32)> {
        let dir = std::env::temp_dir().join(format!("tw-child-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let pidfile = dir.join("grandchild.pid");
        let script = format!(
            "sh -c 'echo $$ > {}; while :; do sleep 0.05; done' & wait",
            pidfile.display()
        );
        let (child, group) = spawn("sh", &["-c".to_string(), script])?;
        let started = Instant::now();
        loop {
            if let Some(pid) = std::fs::read_to_string(&pidfile)
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok())
            {
                let _ = std::fs::remove_dir_all(&dir);
                assert!(alive(pid));
                return Ok((child, group, pid));
            }
            assert!(started.elapsed() < Duration::from_secs(10), "no grandchild");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn ends(pid: i32) {
        let since = Instant::now();
        while alive(pid) {
            assert!(
                since.elapsed() < Duration::from_secs(10),
                "grandchild {pid} outlived its group"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The guard alone (as when the runtime shuts down before rmcp's kill task runs).
    #[tokio::test]
    async fn dropping_the_guard_ends_a_grandchild() {
        let (child, group, pid) = launcher("guard").await.unwrap();
        std::mem::forget(child);
        drop(group);
        ends(pid).await;
    }

    /// The transport alone: rmcp's kill on drop reaches the group, not just the launcher.
    #[tokio::test]
    async fn dropping_the_transport_ends_a_grandchild() {
        let (child, group, pid) = launcher("transport").await.unwrap();
        drop(child);
        ends(pid).await;
        drop(group);
    }
}
