//! Typed state for tools, in axum's manner: a value registered once on the [`Registry`]
//! (`registry.insert_state(db)`) reaches every tool that asks for it with a [`State<T>`]
//! parameter (`#[tool]` fills it in and keeps it out of the schema the model sees), or with
//! [`ToolContext::state`] in hand-written tools.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use toolwright_core::{Registry, State, ToolContext, FnTool, ToolSpec, ToolOutput, run_guarded};
//!
//! struct Counter(AtomicU64);
//! let registry = Registry::new().with_state(Counter(AtomicU64::new(0)));
//! registry.register(FnTool::new(
//!     ToolSpec::new("bump", "Count one more.", serde_json::json!({"type": "object"})),
//!     |_, ctx: ToolContext| async move {
//!         let State(counter) = State::<Counter>::from_context(&ctx)?;
//!         Ok(ToolOutput::Data(counter.0.fetch_add(1, Ordering::SeqCst).into()))
//!     },
//! )).unwrap();
//! // The runtime (toolwright-runtime) runs calls; here the resolved tool is run directly.
//! let bump = registry.resolve("bump").unwrap();
//! for _ in 0..2 {
//!     run_guarded(&bump, serde_json::json!({}), bump.context_for("c")).await;
//! }
//! assert_eq!(registry.state::<Counter>().unwrap().0.load(Ordering::SeqCst), 2);
//! # });
//! ```
//!
//! [`Registry`]: crate::Registry
//! [`ToolContext::state`]: crate::ToolContext::state

use crate::error::ToolError;
use crate::tool::ToolContext;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The state values of one registry, one per type. Shared by the registry and every call's
/// context, so a value inserted after a tool was registered still reaches it.
#[derive(Default)]
pub struct States(RwLock<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.read().map(|m| m.len()).unwrap_or(0);
        f.debug_struct("States").field("values", &n).finish()
    }
}

impl States {
    /// Stores `value` as the state of type `T` (replacing an earlier one).
    pub fn insert<T: Send + Sync + 'static>(&self, value: Arc<T>) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(TypeId::of::<T>(), value);
    }

    /// The state of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let any = self
            .0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&TypeId::of::<T>())?
            .clone();
        any.downcast::<T>().ok()
    }
}

/// A tool parameter that receives the registry's state of type `T` (see the module docs).
#[derive(Debug)]
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T: ?Sized> std::ops::Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Send + Sync + 'static> State<T> {
    /// The state of type `T` that the call's registry holds.
    ///
    /// # Errors
    /// `INTERNAL` when no state of that type was registered (a setup mistake of the host, not
    /// something the model can fix).
    pub fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.state::<T>().map(State).ok_or_else(|| {
            ToolError::internal(format!(
                "tool `{}` needs state of type `{}`, which was not registered \
                 (Registry::insert_state)",
                ctx.tool,
                std::any::type_name::<T>()
            ))
        })
    }
}
