//! The page: hand-written HTML, CSS and JavaScript embedded in the binary at build time. No
//! framework, no CDN, nothing fetched at run time but this server's own API.

use crate::api::State;
use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use std::sync::Arc;

/// `index.html`.
pub const INDEX_HTML: &str = include_str!("../assets/index.html");
/// `app.js`.
pub const APP_JS: &str = include_str!("../assets/app.js");
/// `app.css`.
pub const APP_CSS: &str = include_str!("../assets/app.css");

/// Every asset: (path served, content type, content).
pub const ASSETS: [(&str, &str, &str); 3] = [
    ("/", "text/html; charset=utf-8", INDEX_HTML),
    ("/assets/app.js", "text/javascript; charset=utf-8", APP_JS),
    ("/assets/app.css", "text/css; charset=utf-8", APP_CSS),
];

/// The weight of the page: every asset's bytes (the first page loads all of them).
pub fn total_bytes() -> usize {
    ASSETS.iter().map(|(_, _, body)| body.len()).sum()
}

pub(crate) fn routes() -> Router<Arc<State>> {
    let mut r = Router::new();
    for (path, kind, body) in ASSETS {
        r = r.route(
            path,
            get(move || async move { ([(header::CONTENT_TYPE, kind)], body).into_response() }),
        );
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_weighs_under_500_kb_and_loads_nothing_remote() {
        assert!(total_bytes() < 500 * 1024, "{} bytes", total_bytes());
        for (path, _, body) in ASSETS {
            assert!(!body.contains("https://"), "{path} refers to a remote URL");
            assert!(!body.contains("http://"), "{path} refers to a remote URL");
        }
        assert!(INDEX_HTML.contains("/assets/app.js"));
        assert!(INDEX_HTML.contains("/assets/app.css"));
    }
}
