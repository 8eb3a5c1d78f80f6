//! Generic out-of-scope requests ("probes"): what people ask an assistant that no
//! toolset-specific app does. Routed once against a toolset, they show how similar a request
//! that fits none of its tools typically looks to them, a scale that differs from one toolset
//! to another.
//!
//! How the list was written: blind, from general knowledge of what people ask assistants (small
//! talk, arithmetic, creative writing, general knowledge and trivia, translation, advice,
//! definitions, recipes, health and fitness, and personal errands for other services), before
//! any request of any evaluation dataset was read, and never changed after seeing one. It holds
//! no request of any dataset.

/// The probes, one generic off-domain request each.
pub const PROBES: &[&str] = &[
    // Small talk.
    "hi, how are you today?",
    "tell me something interesting",
    "what's your favourite colour?",
    "thanks, that was helpful!",
    "good morning! did you sleep well?",
    // Arithmetic and unit conversions.
    "what is 17 times 23?",
    "how many ounces are in a pound?",
    "convert 30 degrees celsius to fahrenheit",
    "what's the square root of 144?",
    "if I save 50 dollars a week, how much will I have in a year?",
    // Creative writing.
    "write a short poem about the sea",
    "tell me a joke about cats",
    "write a bedtime story about a dragon who is afraid of the dark",
    "give me a catchy slogan for a lemonade stand",
    "compose a haiku about autumn leaves",
    // General knowledge and trivia.
    "who was the first person to walk on the moon?",
    "what is the capital of Australia?",
    "why is the sky blue?",
    "how far is the sun from the earth?",
    "who painted the Mona Lisa?",
    "when did the Second World War end?",
    "how many bones are in the human body?",
    // Translation and language.
    "how do you say 'good night' in Japanese?",
    "translate 'where is the train station' into Spanish",
    "what does the word 'ephemeral' mean?",
    "give me a synonym for happy",
    "is it 'affect' or 'effect' in this sentence: the weather will affect our plans",
    // Advice.
    "how can I fall asleep faster?",
    "any tips for a job interview tomorrow?",
    "what should I get my sister for her birthday?",
    "how do I stop procrastinating?",
    "how do I ask my landlord to fix the heating politely?",
    // Recipes and cooking.
    "how do I make pancakes from scratch?",
    "what can I cook with rice, eggs and spinach?",
    "how long should I boil an egg for a soft yolk?",
    // Health and fitness.
    "what's a good stretching routine for lower back pain?",
    "how much water should I drink a day?",
    "suggest a 20 minute workout I can do at home",
    // Personal errands for other services.
    "order me a large pepperoni pizza",
    "book a taxi to the airport for 6 am",
    "call mom",
    "set an alarm for 7 tomorrow morning",
    "play some relaxing jazz music",
    "book a table for two at an Italian restaurant tonight",
    "turn off the living room lights",
    "remind me to water the plants on Sunday",
    "find me a cheap flight to Lisbon next month",
    // Opinions, philosophy and explanations.
    "what is the meaning of life?",
    "explain quantum physics like I'm five",
    "which is better, cats or dogs?",
    "summarise the plot of Romeo and Juliet",
    "recommend a good science fiction novel",
    "what's a fun board game for a family of four?",
    "how do airplanes stay in the air?",
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_probes_are_distinct_and_not_empty() {
        let mut p: Vec<&str> = super::PROBES.to_vec();
        assert!(p.iter().all(|q| !q.trim().is_empty()));
        p.sort_unstable();
        p.dedup();
        assert_eq!(p.len(), super::PROBES.len());
    }
}
