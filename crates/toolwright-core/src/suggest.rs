//! Closest-name suggestions for misspelled tools and parameters.

/// Up to `n` candidates closest to `word` (case-insensitive edit distance, or containment),
/// best first. Candidates too far away to be a typo are left out.
///
/// ```
/// let names = ["query_users", "get_weather", "read_file"];
/// assert_eq!(toolwright_core::closest("qurey_users", names, 1), vec!["query_users"]);
/// assert!(toolwright_core::closest("zzz", names, 3).is_empty());
/// ```
pub fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let w = word.to_lowercase();
    let mut scored: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let lc = c.to_lowercase();
            let d = strsim::damerau_levenshtein(&w, &lc);
            let limit = (w.chars().count().max(lc.chars().count()) / 3).max(2);
            let contains = w.len() >= 3 && (lc.contains(&w) || w.contains(&lc));
            if d <= limit {
                Some((d, c))
            } else if contains {
                Some((limit + 1, c))
            } else {
                None
            }
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}
