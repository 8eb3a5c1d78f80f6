//! Time zones named by place: a parameter that takes an IANA zone gets the zones of the places
//! the request names.
//!
//! A zone is written, not copied: "what time is it in Tokyo?" wants `Asia/Tokyo`, which is not a
//! span of the request, and a model of 135M parameters writes `Tokyo` or `UTC`. The tz
//! database (through `chrono-tz`) names each canonical zone by a region and a place
//! (`America/Sao_Paulo`, `America/Argentina/Buenos_Aires`); a run of one to three words of the
//! request that is such a place (case and the common Latin accents aside: "sao paulo",
//! "São Paulo") gives its zone. `UTC` written in the request is kept as a zone too.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The regions of canonical zone names (the legacy links such as `US/Central` or `Japan` are
/// left out: a place gives its canonical zone).
const REGIONS: &[&str] = &[
    "Africa",
    "America",
    "Antarctica",
    "Asia",
    "Atlantic",
    "Australia",
    "Europe",
    "Indian",
    "Pacific",
];

/// `s` lowercased, with the common Latin accents taken off and `_` read as a space.
fn fold(s: &str) -> String {
    s.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            '_' => ' ',
            c => c,
        })
        .collect()
}

/// Place (folded) → its canonical zones.
fn places() -> &'static HashMap<String, Vec<&'static str>> {
    static PLACES: OnceLock<HashMap<String, Vec<&'static str>>> = OnceLock::new();
    PLACES.get_or_init(|| {
        let mut m: HashMap<String, Vec<&'static str>> = HashMap::new();
        for tz in chrono_tz::TZ_VARIANTS.iter() {
            let name = tz.name();
            let region = name.split('/').next().unwrap_or("");
            if !REGIONS.contains(&region) || !name.contains('/') {
                continue;
            }
            if let Some(place) = name.rsplit('/').next() {
                m.entry(fold(place)).or_default().push(name);
            }
        }
        m
    })
}

/// Whether `value` is a canonical IANA zone name (`Europe/Paris`) or `UTC`.
pub fn is_zone(value: &str) -> bool {
    value == "UTC" || places().values().any(|zs| zs.contains(&value))
}

/// The zones of the places `query` names, in the order it names them, and `UTC` when it says
/// so.
///
/// ```
/// use toolwright_local::zones::zones_named;
/// assert_eq!(zones_named("convert 9:30 am Berlin time to Los Angeles time"),
///            ["Europe/Berlin", "America/Los_Angeles"]);
/// assert_eq!(zones_named("the date and time in sao paulo"), ["America/Sao_Paulo"]);
/// assert!(zones_named("what time is it?").is_empty());
/// ```
pub fn zones_named(query: &str) -> Vec<String> {
    let words: Vec<String> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(fold)
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        // The longest run first: "los angeles" before "angeles".
        let hit = (1..=3).rev().find_map(|n| {
            let run = words.get(i..i + n)?.join(" ");
            places().get(&run).map(|zs| (n, zs))
        });
        match hit {
            Some((n, zs)) => {
                for z in zs {
                    if !out.iter().any(|o| o == z) {
                        out.push((*z).to_string());
                    }
                }
                i += n;
            }
            None => {
                if words.get(i).is_some_and(|w| w == "utc") && !out.iter().any(|o| o == "UTC") {
                    out.push("UTC".into());
                }
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_give_their_canonical_zones() {
        assert_eq!(
            zones_named("what time is it in Tokyo right now?"),
            ["Asia/Tokyo"]
        );
        assert_eq!(
            zones_named("what is 8pm Chicago time in Singapore time?"),
            ["America/Chicago", "Asia/Singapore"]
        );
        assert_eq!(
            zones_named("São Paulo and UTC"),
            ["America/Sao_Paulo", "UTC"]
        );
        assert!(zones_named("Buenos Aires").contains(&"America/Argentina/Buenos_Aires".into()));
        // Legacy links are not places: "Japan" is a country, not a zone's place.
        assert!(zones_named("the time in Japan").is_empty());
    }

    #[test]
    fn zone_names_are_recognised() {
        assert!(is_zone("Europe/Paris"));
        assert!(is_zone("UTC"));
        assert!(!is_zone("Paris"));
        assert!(!is_zone("US/Central"));
    }
}
