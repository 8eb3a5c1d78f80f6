//! The prompted-JSON reply reader (`toolwright_agent::providers::prompted::parse_reply`): what a
//! model without native tool calling writes, read into a `Reply`.
//!
//! Checks: no panic; a reply has calls or a non-empty answer; every call has object arguments
//! (or, when they were not JSON, the raw text as a string) and a unique id; a reply serializes;
//! an error is a non-empty message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use toolwright_agent::providers::prompted::parse_reply;

fuzz_target!(|data: &[u8]| {
    let Some((&base, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match parse_reply(text, usize::from(base)) {
        Ok(reply) => {
            let answered = reply.text.as_deref().is_some_and(|t| !t.is_empty());
            assert!(
                answered || !reply.tool_calls.is_empty(),
                "an empty reply: {reply:?}"
            );
            let mut ids = HashSet::new();
            for call in &reply.tool_calls {
                let args = &call.arguments;
                assert!(args.is_object() || args.is_string(), "arguments: {reply:?}");
                assert!(ids.insert(call.id.clone()), "duplicate call id: {reply:?}");
            }
            serde_json::to_string(&reply).expect("a reply serializes");
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
