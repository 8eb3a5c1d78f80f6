//! toolwright-catalog: see the crate description.
