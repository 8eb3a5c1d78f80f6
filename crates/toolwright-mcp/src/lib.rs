//! toolwright-mcp: see the crate description.
