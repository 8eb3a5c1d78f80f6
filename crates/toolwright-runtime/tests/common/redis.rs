//! A private redis-server for tests (also used by the CLI's tests through `#[path]`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

/// A redis-server of our own on a free loopback port, stopped on drop.
pub struct RedisServer {
    pub port: u16,
    bin: String,
    child: Option<std::process::Child>,
    /// Certificate and key: the server speaks only TLS (`rediss://`).
    tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
}

impl RedisServer {
    /// Starts one; `None` only when `TOOLWRIGHT_SKIP_REDIS=1` and the binary is missing.
    pub fn start() -> Option<RedisServer> {
        Self::start_with(None)
    }

    /// Starts one that speaks only TLS with `cert` and `key` (PEM files).
    pub fn start_tls(cert: std::path::PathBuf, key: std::path::PathBuf) -> Option<RedisServer> {
        Self::start_with(Some((cert, key)))
    }

    fn start_with(tls: Option<(std::path::PathBuf, std::path::PathBuf)>) -> Option<RedisServer> {
        let bin = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .map(str::to_string)
            .or_else(|| {
                std::process::Command::new("sh")
                    .args(["-c", "command -v redis-server"])
                    .output()
                    .ok()
                    .filter(|o| o.status.success())
                    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                    .filter(|s| !s.is_empty())
            });
        let Some(bin) = bin else {
            if std::env::var("TOOLWRIGHT_SKIP_REDIS").as_deref() == Ok("1") {
                eprintln!("redis-server not found; skipping (TOOLWRIGHT_SKIP_REDIS=1)");
                return None;
            }
            panic!(
                "redis-server is not installed: the Redis idempotency tests need it \
                 (apt-get install redis-server, or scripts/setup.sh). Set TOOLWRIGHT_SKIP_REDIS=1 \
                 to skip them knowingly."
            );
        };
        let port = free_port();
        let mut server = RedisServer {
            port,
            bin: bin.clone(),
            child: None,
            tls,
        };
        server.spawn(&bin);
        Some(server)
    }

    fn spawn(&mut self, bin: &str) {
        let mut cmd = std::process::Command::new(bin);
        match &self.tls {
            None => cmd.args(["--port", &self.port.to_string()]),
            Some((cert, key)) => cmd
                .args(["--port", "0", "--tls-port", &self.port.to_string()])
                .arg("--tls-cert-file")
                .arg(cert)
                .arg("--tls-key-file")
                .arg(key)
                .args(["--tls-auth-clients", "no"]),
        };
        let child = cmd
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server did not listen on port {}", self.port);
    }

    pub fn url(&self) -> String {
        match self.tls {
            // The test certificate is self-signed: `#insecure` skips its verification.
            Some(_) => format!("rediss://127.0.0.1:{}/0#insecure", self.port),
            None => format!("redis://127.0.0.1:{}/0", self.port),
        }
    }

    /// Starts the server again on the same port (empty: the data went with the old one).
    pub fn restart(&mut self) {
        self.stop();
        let bin = self.bin.clone();
        self.spawn(&bin);
    }

    /// Stops the server (the data goes with it).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}
