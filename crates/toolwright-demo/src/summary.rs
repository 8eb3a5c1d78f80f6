//! Sentences for the demo tools' results, for a host that composes answers from envelopes (the
//! embedded model's answer composition in `toolwright-local`, wired by the CLI).
//!
//! Only this crate knows what a conversion or a weather observation looks like; the generic
//! description elsewhere knows envelopes only. A conversion states the amount, both currencies,
//! the rate and the date of the rates; an observation the place, temperature, condition and
//! time.

use serde_json::Value;

/// The sentence for `envelope` of demo tool `tool`, when the demo has one: conversions
/// (`convert_currency`'s data shape) and weather observations (`get_weather`'s). `None` for
/// failures, confirmations and every other result, so the caller's generic description applies.
///
/// ```
/// let env = serde_json::json!({"status": "success", "message": "convert_currency succeeded.",
///     "data": {"amount": 100.0, "from_currency": "USD", "to_currency": "EUR", "rate": 0.96043,
///              "converted": 96.04, "rates_date": "2026-11-27"}});
/// assert_eq!(
///     toolwright_demo::summarize("convert_currency", &env).as_deref(),
///     Some("100 USD = 96.04 EUR (rate 0.9604, rates of 2026-11-27).")
/// );
/// ```
pub fn summarize(tool: &str, envelope: &Value) -> Option<String> {
    let _ = tool; // the data's shape identifies the result, whichever tool produced it
    let status = envelope.get("status").and_then(Value::as_str);
    if !matches!(status, Some("success" | "partial")) {
        return None;
    }
    let data = envelope.get("data")?;
    let get = |k: &str| data.get(k).and_then(scalar_text);
    // Conversions: amount, both currencies, rate and the date of the rates.
    if let (Some(amount), Some(from), Some(conv), Some(to)) = (
        get("amount"),
        get("from_currency"),
        get("converted"),
        get("to_currency"),
    ) {
        let mut s = format!("{amount} {from} = {conv} {to}");
        if let Some(rate) = get("rate") {
            s.push_str(&format!(" (rate {rate}"));
            if let Some(d) = get("rates_date") {
                s.push_str(&format!(", rates of {d}"));
            }
            s.push(')');
        } else if let Some(d) = get("rates_date") {
            s.push_str(&format!(" (rates of {d})"));
        }
        s.push('.');
        return Some(s);
    }
    // Observations: place, temperature, condition, time.
    if let (Some(city), Some(temp)) = (get("city"), get("temperature")) {
        let unit = match get("units").as_deref() {
            Some("fahrenheit") => "°F",
            _ => "°C",
        };
        let mut s = format!("In {city} it is {temp} {unit}");
        if let Some(c) = get("condition").or_else(|| get("conditions")) {
            s.push_str(&format!(", {c}"));
        }
        if let Some(at) = get("observed_at") {
            s.push_str(&format!(" (observed {at})"));
        }
        s.push('.');
        return Some(s);
    }
    None
}

/// A scalar as a person would read it: numbers without `.0` and with at most 4 decimals.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => n.as_f64().map(|n| {
            if n.fract() == 0.0 && n.abs() < 1e15 {
                format!("{n:.0}")
            } else {
                let s = format!("{n:.4}");
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            }
        }),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conversions_state_amount_currencies_rate_and_date() {
        let env = json!({"status": "success", "message": "convert_currency succeeded.",
            "data": {"amount": 100.0, "from_currency": "USD", "to_currency": "EUR", "rate": 0.96043,
                     "converted": 96.04, "rates_date": "2026-11-27", "source": "fixture"}});
        assert_eq!(
            summarize("convert_currency", &env).as_deref(),
            Some("100 USD = 96.04 EUR (rate 0.9604, rates of 2026-11-27).")
        );
    }

    #[test]
    fn weather_sentence() {
        let env = json!({"status": "success", "message": "get_weather succeeded.",
            "data": {"city": "Paris", "temperature": 0.6, "units": "celsius", "condition": "cloudy",
                     "observed_at": "2026-11-27T12:00:00Z"}});
        assert_eq!(
            summarize("get_weather", &env).as_deref(),
            Some("In Paris it is 0.6 °C, cloudy (observed 2026-11-27T12:00:00Z).")
        );
    }

    #[test]
    fn other_results_and_failures_have_no_demo_sentence() {
        let calc = json!({"status": "success", "message": "17*23 = 391", "data": 391});
        assert_eq!(summarize("calculate", &calc), None);
        let err = json!({"status": "error", "message": "No weather data for `X`.",
            "data": {"city": "X", "temperature": 1}});
        assert_eq!(summarize("get_weather", &err), None);
    }

    #[test]
    fn the_real_tools_results_get_their_sentences() {
        let dir = tempfile::tempdir().unwrap();
        let reg = crate::registry(crate::DemoConfig {
            root: dir.path().to_path_buf(),
        })
        .unwrap();
        let runtime = toolwright_runtime::Runtime::new(std::sync::Arc::new(reg));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let run = |name: &str, args: Value| {
            let call = toolwright::ToolCall::new("c1", name, args);
            rt.block_on(runtime.invoke(call, &toolwright_runtime::CallOptions::default()))
                .to_json()
        };
        let conv = run(
            "convert_currency",
            json!({"amount": 100, "from_currency": "USD", "to_currency": "EUR"}),
        );
        let s = summarize("convert_currency", &conv).unwrap();
        assert!(
            s.starts_with("100 USD = ") && s.contains(" EUR (rate "),
            "{s}"
        );
        assert!(s.contains(&crate::finance::rates_date()), "{s}");
        let weather = run("get_weather", json!({"city": "Paris"}));
        let s = summarize("get_weather", &weather).unwrap();
        assert!(s.starts_with("In Paris it is "), "{s}");
    }
}
