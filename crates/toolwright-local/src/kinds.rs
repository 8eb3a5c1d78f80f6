//! Values named by their kind: a colour parameter gets the colours the request names.
//!
//! "new todoist label waiting-on, orange" gives `add_label` the colour `orange`, although no
//! word of the request names the parameter `color`: the value itself says what it is. A
//! parameter takes colours when the last word of its name is `color` or `colour` (`color`,
//! `background_color`; not `colorScheme`, whose values are `light` and `dark`), and a colour is
//! one of the CSS named colours (CSS Color Module Level 4, the list browsers accept, `grey`
//! spellings included), written as a word of the request in any case. An `enum` parameter is left to
//! narrowing, which reads its own values.

/// The CSS Color Module Level 4 named colours (`<named-color>`; each `gray` also as `grey`, as
/// the specification lists them), sorted for a binary search.
const COLOURS: &[&str] = &[
    "aliceblue",
    "antiquewhite",
    "aqua",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanchedalmond",
    "blue",
    "blueviolet",
    "brown",
    "burlywood",
    "cadetblue",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflowerblue",
    "cornsilk",
    "crimson",
    "cyan",
    "darkblue",
    "darkcyan",
    "darkgoldenrod",
    "darkgray",
    "darkgreen",
    "darkgrey",
    "darkkhaki",
    "darkmagenta",
    "darkolivegreen",
    "darkorange",
    "darkorchid",
    "darkred",
    "darksalmon",
    "darkseagreen",
    "darkslateblue",
    "darkslategray",
    "darkslategrey",
    "darkturquoise",
    "darkviolet",
    "deeppink",
    "deepskyblue",
    "dimgray",
    "dimgrey",
    "dodgerblue",
    "firebrick",
    "floralwhite",
    "forestgreen",
    "fuchsia",
    "gainsboro",
    "ghostwhite",
    "gold",
    "goldenrod",
    "gray",
    "green",
    "greenyellow",
    "grey",
    "honeydew",
    "hotpink",
    "indianred",
    "indigo",
    "ivory",
    "khaki",
    "lavender",
    "lavenderblush",
    "lawngreen",
    "lemonchiffon",
    "lightblue",
    "lightcoral",
    "lightcyan",
    "lightgoldenrodyellow",
    "lightgray",
    "lightgreen",
    "lightgrey",
    "lightpink",
    "lightsalmon",
    "lightseagreen",
    "lightskyblue",
    "lightslategray",
    "lightslategrey",
    "lightsteelblue",
    "lightyellow",
    "lime",
    "limegreen",
    "linen",
    "magenta",
    "maroon",
    "mediumaquamarine",
    "mediumblue",
    "mediumorchid",
    "mediumpurple",
    "mediumseagreen",
    "mediumslateblue",
    "mediumspringgreen",
    "mediumturquoise",
    "mediumvioletred",
    "midnightblue",
    "mintcream",
    "mistyrose",
    "moccasin",
    "navajowhite",
    "navy",
    "oldlace",
    "olive",
    "olivedrab",
    "orange",
    "orangered",
    "orchid",
    "palegoldenrod",
    "palegreen",
    "paleturquoise",
    "palevioletred",
    "papayawhip",
    "peachpuff",
    "peru",
    "pink",
    "plum",
    "powderblue",
    "purple",
    "rebeccapurple",
    "red",
    "rosybrown",
    "royalblue",
    "saddlebrown",
    "salmon",
    "sandybrown",
    "seagreen",
    "seashell",
    "sienna",
    "silver",
    "skyblue",
    "slateblue",
    "slategray",
    "slategrey",
    "snow",
    "springgreen",
    "steelblue",
    "tan",
    "teal",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "whitesmoke",
    "yellow",
    "yellowgreen",
];

/// Whether the parameter called `name` takes a colour: the last word of its name is `color`
/// or `colour`.
///
/// ```
/// use toolwright_local::kinds::colour_param;
/// assert!(colour_param("color") && colour_param("background_colour") && colour_param("textColor"));
/// assert!(!colour_param("colorScheme") && !colour_param("forcedColors") && !colour_param("name"));
/// ```
pub fn colour_param(name: &str) -> bool {
    crate::cues::name_words(name)
        .last()
        .is_some_and(|w| w == "color" || w == "colour")
}

/// The colours the request names, as written, each once.
///
/// ```
/// use toolwright_local::kinds::colours_named;
/// assert_eq!(colours_named("new todoist label waiting-on, orange"), ["orange"]);
/// assert_eq!(colours_named("make it Navy or teal, not navy"), ["Navy", "teal"]);
/// assert!(colours_named("add a label for the orangery").is_empty());
/// ```
pub fn colours_named(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, body) in crate::spans::word_ranges(query) {
        let Some(w) = query.get(body) else { continue };
        let lower = w.to_lowercase();
        if COLOURS.binary_search(&lower.as_str()).is_ok()
            && !out.iter().any(|o| o.to_lowercase() == lower)
        {
            out.push(w.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_for_binary_search() {
        assert!(COLOURS.windows(2).all(|w| w[0] < w[1]));
    }
}
