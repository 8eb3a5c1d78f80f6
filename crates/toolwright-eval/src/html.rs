//! A self-contained HTML report: the summary table, a bar chart (inline SVG, no external assets)
//! of error rates per mode and category, and the failing cases with the model's output and the
//! envelopes it received.

use crate::report::Report;
use crate::run::Mode;

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}\n… ({} more characters)", s.chars().count() - max)
    }
}

fn color(mode: Mode) -> &'static str {
    match mode {
        Mode::Naive => "#d9534f",
        Mode::Guided => "#2e7d32",
    }
}

/// The bar chart: one group per category (and "all"), one bar per mode, height = error rate.
pub fn chart(report: &Report) -> String {
    let mut cats: Vec<String> = vec!["all".to_string()];
    for s in &report.summaries {
        for c in &s.by_category {
            if !cats.contains(&c.category) {
                cats.push(c.category.clone());
            }
        }
    }
    let modes: Vec<Mode> = report.summaries.iter().map(|s| s.mode).collect();
    let bar_w = 36.0;
    let gap = 28.0;
    let group_w = bar_w * modes.len().max(1) as f64 + gap;
    let left = 48.0;
    let top = 20.0;
    let plot_h = 200.0;
    // Wide enough for the bars and for the legend (one entry per mode).
    let width = (left + group_w * cats.len() as f64 + 20.0).max(left + 130.0 * modes.len() as f64);
    let height = top + plot_h + 70.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" aria-label=\"Error rate per mode and category\" \
         font-family=\"sans-serif\" font-size=\"12\">"
    );
    for pct in [0, 25, 50, 75, 100] {
        let y = top + plot_h * (1.0 - f64::from(pct) / 100.0);
        svg.push_str(&format!(
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{pct}%</text>",
            width - 10.0,
            left - 6.0,
            y + 4.0
        ));
    }
    for (ci, cat) in cats.iter().enumerate() {
        let gx = left + gap / 2.0 + group_w * ci as f64;
        for (mi, s) in report.summaries.iter().enumerate() {
            let rate = if cat == "all" {
                Some(s.error_rate)
            } else {
                s.by_category
                    .iter()
                    .find(|c| &c.category == cat)
                    .map(|c| c.error_rate)
            };
            let Some(rate) = rate else { continue };
            let h = plot_h * rate.clamp(0.0, 1.0);
            let x = gx + bar_w * mi as f64;
            let y = top + plot_h - h;
            svg.push_str(&format!(
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{}\">\
                 <title>{} {}: {:.1}%</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{:.0}%</text>",
                bar_w - 4.0,
                color(s.mode),
                escape(cat),
                s.mode.as_str(),
                100.0 * rate,
                x + (bar_w - 4.0) / 2.0,
                y - 3.0,
                100.0 * rate
            ));
        }
        svg.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            gx + bar_w * modes.len() as f64 / 2.0,
            top + plot_h + 18.0,
            escape(cat)
        ));
    }
    for (mi, m) in modes.iter().enumerate() {
        let x = left + 130.0 * mi as f64;
        let y = top + plot_h + 45.0;
        svg.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{y:.1}\">{} error rate</text>",
            y - 10.0,
            color(*m),
            x + 16.0,
            m.as_str()
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// The whole page.
pub fn render(report: &Report) -> String {
    let mut h = String::from(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>toolwright eval report</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:1200px;color:#222}\
         table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}\
         th{background:#f4f4f4}td.l,th.l{text-align:left}\
         pre{background:#f7f7f7;padding:6px;white-space:pre-wrap;word-break:break-word;max-height:300px;overflow:auto;font-size:12px}\
         details{margin:0.6em 0;border:1px solid #ddd;padding:6px}summary{cursor:pointer}\
         .bad{color:#b00}</style></head><body>",
    );
    h.push_str("<h1>toolwright eval</h1>");
    h.push_str(&format!(
        "<p>Provider: <b>{}</b> · wall time {:.1} s</p>",
        escape(&report.provider),
        report.wall_ms as f64 / 1000.0
    ));
    if let Some(r) = report.reduction {
        h.push_str(&format!(
            "<p>Error reduction guided vs naive: <b>{:.1}%</b></p>",
            100.0 * r
        ));
    }
    h.push_str(
        "<table><tr><th class=\"l\">mode</th><th>tasks</th><th>errors</th><th>error rate</th>\
         <th>right tools</th><th>right arguments</th><th>valid call</th><th>irrelevance refused</th>\
         <th>round trips</th><th>prompt tokens</th><th>generated tokens</th><th>wall s</th></tr>",
    );
    for s in &report.summaries {
        h.push_str(&format!(
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{:.1}%</td><td>{:.1}%</td>\
             <td>{:.1}%</td><td>{:.1}%</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{:.1}</td></tr>",
            s.mode.as_str(),
            s.tasks,
            s.errors,
            100.0 * s.error_rate,
            100.0 * s.right_tools_rate,
            100.0 * s.right_arguments_rate,
            100.0 * s.valid_call_rate,
            s.irrelevance_refusal_rate
                .map_or_else(|| "–".to_string(), |r| format!("{:.1}%", 100.0 * r)),
            s.mean_round_trips,
            s.prompt_tokens,
            s.completion_tokens,
            s.wall_ms as f64 / 1000.0
        ));
    }
    h.push_str("</table><h2>Error rate per mode and category</h2>");
    h.push_str(&chart(report));
    let failing: Vec<_> = report.results.iter().filter(|r| !r.score.correct).collect();
    h.push_str(&format!("<h2>Failing cases ({})</h2>", failing.len()));
    for r in failing {
        let calls = serde_json::to_string_pretty(&r.calls).unwrap_or_default();
        let expected = serde_json::to_string_pretty(&r.expected).unwrap_or_default();
        let envelopes = serde_json::to_string_pretty(&r.envelopes).unwrap_or_default();
        h.push_str(&format!(
            "<details><summary><b>{}</b> · {} · {} · <span class=\"bad\">{}</span></summary>\
             <p>{}</p><p><i>{}</i></p>",
            escape(&r.id),
            escape(&r.category),
            r.mode.as_str(),
            escape(r.score.error.map_or("error", |k| k.as_str())),
            escape(&r.score.detail),
            escape(&r.query),
        ));
        if let Some(e) = &r.provider_error {
            h.push_str(&format!(
                "<p class=\"bad\">provider error: {}</p>",
                escape(e)
            ));
        }
        h.push_str(&format!(
            "<p>Model output</p><pre>{}</pre><p>Calls scored</p><pre>{}</pre>\
             <p>Expected</p><pre>{}</pre><p>Envelopes</p><pre>{}</pre></details>",
            escape(&clip(&r.output, 4000)),
            escape(&clip(&calls, 4000)),
            escape(&clip(&expected, 4000)),
            escape(&clip(&envelopes, 6000)),
        ));
    }
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;

    #[test]
    fn renders_a_self_contained_page_with_a_chart() {
        let mut bad = crate::report::tests::result("t<1>", "simple", Mode::Naive, false);
        bad.output = "<script>alert(1)</script>".into();
        let good = crate::report::tests::result("t<1>", "simple", Mode::Guided, true);
        let page = render(&Report::new("local".into(), vec![bad, good], 5));
        assert!(page.contains("<svg"));
        assert!(page.contains("simple naive: 100.0%"));
        assert!(page.contains("&lt;script&gt;"));
        assert!(!page.contains("<script>"));
        assert!(!page.contains("http://") || page.matches("http://").count() == 1); // only the SVG namespace
        assert!(page.contains("Failing cases (1)"));
        assert!(page.contains("Error reduction guided vs naive: <b>100.0%</b>"));
    }
}
