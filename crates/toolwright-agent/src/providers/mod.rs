//! The providers: one [`crate::Provider`] per wire format or model kind.

pub mod anthropic;
#[cfg(feature = "local")]
pub mod local;
pub mod openai;
pub mod prompted;
pub mod scripted;
