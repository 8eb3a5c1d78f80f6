//! Call events for progress displays: every call emits `started` then `finished`.
//!
//! Subscribe with [`crate::Runtime::subscribe`] (a tokio broadcast channel; a slow subscriber
//! misses old events rather than slowing calls down).

use serde::{Deserialize, Serialize};
use toolwright_core::{ErrorCode, Status};

/// One event of a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ToolEvent {
    /// A call started.
    Started {
        /// The call id.
        call_id: String,
        /// The tool as called.
        tool: String,
        /// What a UI shows while it runs.
        display_label: String,
        /// Session of the call.
        #[serde(skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
        /// Agent step.
        step: u32,
    },
    /// A call finished.
    Finished {
        /// The call id.
        call_id: String,
        /// The tool that answered.
        tool: String,
        /// What a UI shows for it.
        display_label: String,
        /// Wall time, milliseconds.
        duration_ms: u64,
        /// The envelope's status.
        status: Status,
        /// The error code, when it failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<ErrorCode>,
        /// Replayed from the idempotency store.
        replayed: bool,
        /// Automatic retries made.
        retries: u32,
    },
}

impl ToolEvent {
    /// The call id.
    pub fn call_id(&self) -> &str {
        match self {
            ToolEvent::Started { call_id, .. } | ToolEvent::Finished { call_id, .. } => call_id,
        }
    }
}
