//! Who may use the playground: every request passes [`check`].
//!
//! - **Host** must name the bound address (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`
//!   for a loopback bind): a page on another site that re-points its DNS name at 127.0.0.1
//!   (DNS rebinding) is refused with 421.
//! - **Token**: the printed URL carries `?token=…`; the first visit with it sets the cookie
//!   [`COOKIE`] (`HttpOnly; SameSite=Strict`) and redirects to the same path without the token.
//!   Every other request needs the cookie (or `?token=`); without it: 401.
//! - **Cross-site requests run nothing**: a request whose `Origin` is not this server, or whose
//!   `Sec-Fetch-Site` is `cross-site`/`same-site`, is refused with 403; a state-changing
//!   request (any method but GET/HEAD) must also be `Content-Type: application/json`, which a
//!   cross-site form cannot send. `SameSite=Strict` keeps the cookie off cross-site requests too.
//! - Responses carry a strict Content-Security-Policy (same-origin scripts, styles and
//!   connections only), `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer` and `no-store`.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::sync::Arc;

/// The name of the session cookie.
pub const COOKIE: &str = "toolwright_ui";

/// The Content-Security-Policy of every response.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// A fresh random token: 32 hex digits (128 bits).
pub fn random_token() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The token and the host names the server answers to.
#[derive(Debug, Clone)]
pub struct Guard {
    token: String,
    hosts: Vec<String>,
}

impl Guard {
    /// A guard for a server bound at `addr` with `token`.
    pub fn new(token: String, addr: SocketAddr) -> Guard {
        let port = addr.port();
        let mut hosts = vec![match addr {
            SocketAddr::V4(a) => format!("{}:{port}", a.ip()),
            SocketAddr::V6(a) => format!("[{}]:{port}", a.ip()),
        }];
        if addr.ip().is_loopback() || addr.ip().is_unspecified() {
            for h in ["127.0.0.1", "localhost", "[::1]"] {
                hosts.push(format!("{h}:{port}"));
            }
        }
        hosts.dedup();
        Guard { token, hosts }
    }

    fn host_ok(&self, headers: &HeaderMap) -> bool {
        header_str(headers, header::HOST)
            .is_some_and(|h| self.hosts.iter().any(|a| a.eq_ignore_ascii_case(h)))
    }

    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        if let Some(site) = header_str(headers, "sec-fetch-site")
            && !matches!(site, "same-origin" | "none")
        {
            return false;
        }
        match header_str(headers, header::ORIGIN) {
            None => true,
            Some(origin) => origin
                .strip_prefix("http://")
                .is_some_and(|h| self.hosts.iter().any(|a| a.eq_ignore_ascii_case(h))),
        }
    }

    fn token_eq(&self, given: &str) -> bool {
        // Constant time in the token's length: no early exit on the first differing byte.
        let (a, b) = (self.token.as_bytes(), given.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    fn cookie_ok(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|kv| kv.trim().split_once('='))
            .any(|(k, v)| k == COOKIE && self.token_eq(v))
    }
}

fn header_str(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The `token` parameter of a query string.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v)
}

/// The query string without its `token` parameter.
fn query_without_token(query: &str) -> String {
    query
        .split('&')
        .filter(|kv| !kv.starts_with("token=") && !kv.is_empty())
        .collect::<Vec<_>>()
        .join("&")
}

fn refuse(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text.to_string(),
    )
        .into_response()
}

/// The middleware: refuses what the module docs say, lets the rest through with safe headers.
pub async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if !guard.host_ok(headers) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "toolwright ui: this Host is not served here (open the URL printed by `toolwright ui`)",
        );
    }
    if !guard.origin_ok(headers) {
        return refuse(
            StatusCode::FORBIDDEN,
            "toolwright ui: cross-site requests are refused",
        );
    }
    let state_changing = !matches!(*req.method(), Method::GET | Method::HEAD);
    if state_changing
        && !header_str(headers, header::CONTENT_TYPE)
            .is_some_and(|c| c.starts_with("application/json"))
    {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "toolwright ui: requests that change anything must be application/json",
        );
    }
    let by_query = query_token(req.uri().query()).is_some_and(|t| guard.token_eq(t));
    if !by_query && !guard.cookie_ok(headers) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "toolwright ui: missing or wrong token: open the URL printed by `toolwright ui`",
        );
    }
    if by_query && !state_changing {
        return set_cookie_and_redirect(&guard.token, req.uri());
    }
    let mut res = next.run(req).await;
    harden(res.headers_mut());
    res
}

fn set_cookie_and_redirect(token: &str, uri: &axum::http::Uri) -> Response {
    let rest = query_without_token(uri.query().unwrap_or_default());
    let location = if rest.is_empty() {
        uri.path().to_string()
    } else {
        format!("{}?{rest}", uri.path())
    };
    let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
    let mut res = Response::new(Body::empty());
    *res.status_mut() = StatusCode::SEE_OTHER;
    let h = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&location) {
        h.insert(header::LOCATION, v);
    }
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        h.insert(header::SET_COOKIE, v);
    }
    harden(h);
    res
}

fn harden(h: &mut HeaderMap) {
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new("abc123".into(), "127.0.0.1:4000".parse().unwrap())
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn hosts_of_a_loopback_bind() {
        let g = guard();
        assert!(g.host_ok(&headers(&[("host", "127.0.0.1:4000")])));
        assert!(g.host_ok(&headers(&[("host", "localhost:4000")])));
        assert!(!g.host_ok(&headers(&[("host", "evil.example:4000")])));
        assert!(!g.host_ok(&headers(&[("host", "127.0.0.1:4001")])));
        assert!(!g.host_ok(&HeaderMap::new()));
    }

    #[test]
    fn origins() {
        let g = guard();
        assert!(g.origin_ok(&HeaderMap::new()));
        assert!(g.origin_ok(&headers(&[("origin", "http://127.0.0.1:4000")])));
        assert!(!g.origin_ok(&headers(&[("origin", "http://evil.example")])));
        assert!(!g.origin_ok(&headers(&[("origin", "null")])));
        assert!(!g.origin_ok(&headers(&[("sec-fetch-site", "cross-site")])));
        assert!(g.origin_ok(&headers(&[("sec-fetch-site", "same-origin")])));
    }

    #[test]
    fn cookie_and_token() {
        let g = guard();
        assert!(g.cookie_ok(&headers(&[("cookie", "a=1; toolwright_ui=abc123")])));
        assert!(!g.cookie_ok(&headers(&[("cookie", "toolwright_ui=abc124")])));
        assert!(!g.cookie_ok(&headers(&[("cookie", "toolwright_ui=abc1234")])));
        assert_eq!(query_token(Some("x=1&token=abc")), Some("abc"));
        assert_eq!(query_without_token("x=1&token=abc"), "x=1");
        assert_eq!(random_token().len(), 32);
        assert_ne!(random_token(), random_token());
    }
}
