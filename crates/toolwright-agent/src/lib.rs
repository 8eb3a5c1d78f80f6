//! toolwright-agent: see the crate description.
