//! Times of day written the way a parameter asks for them.
//!
//! A parameter documented as a 24-hour `HH:MM` time ("Time to convert in 24-hour format
//! (HH:MM)", or with an example such as `'14:30'`) wants "9:30 am" as `09:30` and "7pm" as
//! `19:00`: the value is written, not copied, and a small model handed the request's spans gives
//! `"9:30 am Berlin time"`. [`times_named`] reads the request's times of day (`9:30`, `09:30`,
//! `9:30 am`, `7pm`, `7 p.m.`, `noon`, `midnight`) and writes each as `HH:MM`.

/// Whether a parameter documented by `text` (its description and examples) takes a 24-hour
/// `HH:MM` time: the text says `HH:MM`, or shows an example of that shape.
pub fn takes_clock_time(text: &str, examples: &[String]) -> bool {
    text.to_ascii_uppercase().contains("HH:MM") || examples.iter().any(|e| hh_mm(e).is_some())
}

/// `HH:MM` of a 24-hour time written that way (`14:30`, `9:05`), or `None`.
fn hh_mm(s: &str) -> Option<(u32, u32)> {
    let (h, m) = s.split_once(':')?;
    let ok = (1..=2).contains(&h.len()) && m.len() == 2;
    let (h, m) = (h.parse::<u32>().ok()?, m.parse::<u32>().ok()?);
    (ok && h < 24 && m < 60).then_some((h, m))
}

/// The times of day the request writes, each as a 24-hour `HH:MM`, in order, without repeats.
pub fn times_named(query: &str) -> Vec<String> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != ':' && c != '.')
                .trim_end_matches('.')
                .to_ascii_lowercase()
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map_or("", String::as_str);
        let Some((h, m)) = time_at(w, next) else {
            continue;
        };
        let t = format!("{h:02}:{m:02}");
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The time a word writes, with the word after it for "am"/"pm": `9:30`, `9:30` + `am`,
/// `7pm`, `7` + `p.m`, `noon`, `midnight`.
fn time_at(word: &str, next: &str) -> Option<(u32, u32)> {
    match word {
        "noon" | "midday" => return Some((12, 0)),
        "midnight" => return Some((0, 0)),
        _ => {}
    }
    let glued = split_half(word).filter(|(_, h)| !matches!(h, Half::None));
    let (body, half) = glued
        .or_else(|| Some((word, meridiem(next)?)))
        .or_else(|| split_half(word))?;
    let (h, m) = if body.contains(':') {
        hh_mm(body)?
    } else {
        // A bare hour needs its "am"/"pm": "7" alone is a count, not a time.
        (body.parse::<u32>().ok()?, 0)
    };
    match half {
        Half::None => Some((h, m)),
        Half::Am if (1..=12).contains(&h) => Some((h % 12, m)),
        Half::Pm if (1..=12).contains(&h) => Some((h % 12 + 12, m)),
        _ => None,
    }
}

#[derive(Clone, Copy)]
enum Half {
    None,
    Am,
    Pm,
}

/// A word with its "am"/"pm" glued on (`7pm`, `9:30am`), or a 24-hour `hh:mm` alone.
fn split_half(word: &str) -> Option<(&str, Half)> {
    for (suffix, half) in [
        ("am", Half::Am),
        ("a.m", Half::Am),
        ("pm", Half::Pm),
        ("p.m", Half::Pm),
    ] {
        if let Some(body) = word.strip_suffix(suffix)
            && body.starts_with(|c: char| c.is_ascii_digit())
        {
            return Some((body, half));
        }
    }
    (word.contains(':') && hh_mm(word).is_some()).then_some((word, Half::None))
}

/// "am" or "pm" as a word of its own.
fn meridiem(word: &str) -> Option<Half> {
    match word {
        "am" | "a.m" => Some(Half::Am),
        "pm" | "p.m" => Some(Half::Pm),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_24_hour_clock_times() {
        assert_eq!(
            times_named("convert 9:30 am Berlin time to Los Angeles"),
            ["09:30"]
        );
        assert_eq!(
            times_named("at 7pm, or 7 p.m. tomorrow, or 12am"),
            ["19:00", "00:00"]
        );
        assert_eq!(times_named("from 14:05 until noon"), ["14:05", "12:00"]);
        assert_eq!(times_named("12:15 pm and 12:15 am"), ["12:15", "00:15"]);
        // A bare number is no time; nor is a ratio or a version.
        assert!(times_named("the last 7 days, 3:1 odds, v1.2 at 25:00").is_empty());
    }

    #[test]
    fn a_parameter_takes_clock_times_when_documented_so() {
        assert!(takes_clock_time(
            "Time to convert in 24-hour format (HH:MM)",
            &[]
        ));
        assert!(takes_clock_time("Start time", &["14:30".to_string()]));
        assert!(!takes_clock_time(
            "Start time as ISO 8601",
            &["2024-01-01".to_string()]
        ));
    }
}
