//! Helpers shared by the integration tests and examples.
pub mod bfcl;
