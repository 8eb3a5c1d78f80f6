//! [`ToolSpec`]: what a tool advertises (name, description, schema) and its metadata.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What running a tool does to the world. Drives retries, idempotency and confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SideEffects {
    /// Pure computation.
    None,
    /// Reads state, changes nothing.
    Read,
    /// Changes state. The default: a tool is side-effecting unless it says otherwise.
    #[default]
    Write,
    /// Changes state in a way that cannot be undone; always needs confirmation.
    Destructive,
}

impl SideEffects {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            SideEffects::None => "none",
            SideEffects::Read => "read",
            SideEffects::Write => "write",
            SideEffects::Destructive => "destructive",
        }
    }

    /// Parses `none | read | write | destructive`.
    pub fn parse(s: &str) -> Option<SideEffects> {
        match s {
            "none" => Some(SideEffects::None),
            "read" => Some(SideEffects::Read),
            "write" => Some(SideEffects::Write),
            "destructive" => Some(SideEffects::Destructive),
            _ => None,
        }
    }

    /// Whether the tool only reads (or computes).
    pub fn is_read_only(self) -> bool {
        matches!(self, SideEffects::None | SideEffects::Read)
    }
}

/// Default output budget: results larger than this (serialized) are cut.
pub const DEFAULT_OUTPUT_LIMIT_BYTES: usize = 16 * 1024;
/// Default attempts per (step, tool).
pub const DEFAULT_MAX_RETRIES: u32 = 3;

/// Metadata beyond the schema. Every field is optional in the `#[tool]` attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolMeta {
    /// Short label a UI shows while the tool runs ("Converting currency").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_label: Option<String>,
    /// Deadline for one call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The tool must run alone, never in parallel with others.
    pub atomic: bool,
    /// What the tool does to the world.
    pub side_effects: SideEffects,
    /// Calling twice with the same arguments has the effect of calling once.
    pub idempotent: bool,
    /// Attempts allowed per step (default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    /// Tool to call when this one's dependency is unavailable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// A person must approve each call.
    pub requires_confirmation: bool,
    /// Grouping for catalogs and routing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The MCP server the tool was imported from (its `serverInfo.name`). Routing reads it as
    /// the context of the tool's own words: requests often name the product ("in postgres",
    /// "on gitlab") that a tool's description never does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The tool's version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Who maintains it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Expected latency; calls over it are counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sla_ms: Option<u64>,
    /// Example argument objects.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// Output budget in serialized bytes (default 16 KiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_limit_bytes: Option<usize>,
    /// Backends the tool depends on (for catalogs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<String>,
    /// Lint rule ids (e.g. `TW002`) the author has reviewed and allows for this tool, like
    /// clippy's `#[allow]`. Keep the reason next to the attribute.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lint_allow: Vec<String>,
    /// How often the tool may run, across every replica sharing the runtime's store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
}

/// A rate limit: `calls` per `period_ms`, with bursts of up to `burst` calls (GCRA: one call
/// every `period_ms / calls`, `burst - 1` of them early). Calls over it answer `RATE_LIMITED`
/// with `retry_after_ms`.
///
/// ```
/// use toolwright_core::RateLimit;
/// let r: RateLimit = serde_json::from_value(serde_json::json!({"calls": 10})).unwrap();
/// assert_eq!((r.period_ms, r.burst()), (1000, 10));
/// assert_eq!(r.interval_us(), 100_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimit {
    /// Calls allowed per period (at least 1).
    pub calls: u32,
    /// The period in milliseconds (default 1000).
    #[serde(default = "one_second")]
    pub period_ms: u64,
    /// Most calls at once after a quiet spell (default `calls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
    /// Count each caller (the bearer token an HTTP client presents) on its own instead of
    /// all callers together.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_caller: bool,
}

fn one_second() -> u64 {
    1000
}

impl RateLimit {
    /// `calls` per second, bursts of `calls`.
    pub fn per_second(calls: u32) -> Self {
        RateLimit {
            calls,
            period_ms: 1000,
            burst: None,
            per_caller: false,
        }
    }

    /// The largest burst (at least 1).
    pub fn burst(&self) -> u32 {
        self.burst.unwrap_or(self.calls).max(1)
    }

    /// Microseconds between calls at the steady rate (at least 1).
    pub fn interval_us(&self) -> u64 {
        (self.period_ms.saturating_mul(1000) / u64::from(self.calls.max(1))).max(1)
    }

    /// How early a call may come (GCRA's tolerance), in microseconds.
    pub fn tolerance_us(&self) -> u64 {
        self.interval_us()
            .saturating_mul(u64::from(self.burst() - 1))
    }
}

/// Everything a tool advertises: name, description, the JSON Schema (2020-12) of its arguments, and
/// metadata. The schema is the one validation runs against.
///
/// ```
/// use toolwright_core::{ToolSpec, SideEffects};
/// let spec = ToolSpec::new("get_time", "Return the current time. Use this when the user asks the time.",
///     serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false}))
///     .side_effects(SideEffects::Read);
/// assert!(spec.safe_to_retry());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Unique name the model calls.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// JSON Schema (2020-12) of the arguments object.
    pub parameters: Value,
    /// JSON Schema (2020-12) of the envelope's `data` on success, when the tool's result has a
    /// fixed object shape (`#[tool]` derives it from a return type that implements
    /// `JsonSchema` and is an object). `None` for untyped results. The MCP server advertises it
    /// as `outputSchema` (inside the envelope's schema: [`crate::schema::envelope_schema`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Metadata.
    #[serde(default)]
    pub meta: ToolMeta,
}

impl ToolSpec {
    /// A spec with default metadata.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters,
            output_schema: None,
            meta: ToolMeta::default(),
        }
    }

    /// Sets the schema of the result's `data` on success (see [`ToolSpec::output_schema`]).
    /// Only an object schema (`"type": "object"` at the root) is kept, because MCP's
    /// `outputSchema` describes an object; anything else leaves the tool without one.
    ///
    /// ```
    /// use toolwright_core::ToolSpec;
    /// let spec = ToolSpec::new("t", "d", serde_json::json!({"type": "object"}))
    ///     .with_output_schema(Some(serde_json::json!({"type": "object", "properties": {}})));
    /// assert!(spec.output_schema.is_some());
    /// let plain = spec.with_output_schema(Some(serde_json::json!({"type": "string"})));
    /// assert!(plain.output_schema.is_none());
    /// ```
    pub fn with_output_schema(mut self, schema: Option<Value>) -> Self {
        self.output_schema = schema.filter(crate::schema::is_object_schema);
        self
    }

    /// Sets the side effects.
    pub fn side_effects(mut self, side_effects: SideEffects) -> Self {
        self.meta.side_effects = side_effects;
        self
    }

    /// Replaces the metadata.
    pub fn with_meta(mut self, meta: ToolMeta) -> Self {
        self.meta = meta;
        self
    }

    /// Whether each call needs a person's approval.
    pub fn needs_confirmation(&self) -> bool {
        self.meta.requires_confirmation || self.meta.side_effects == SideEffects::Destructive
    }

    /// Whether re-running the tool automatically is safe (read-only or idempotent).
    pub fn safe_to_retry(&self) -> bool {
        self.meta.side_effects.is_read_only() || self.meta.idempotent
    }

    /// Attempts allowed per step.
    pub fn max_retries(&self) -> u32 {
        self.meta.max_retries.unwrap_or(DEFAULT_MAX_RETRIES)
    }

    /// The output budget in bytes.
    pub fn output_limit(&self) -> usize {
        self.meta
            .output_limit_bytes
            .unwrap_or(DEFAULT_OUTPUT_LIMIT_BYTES)
    }

    /// The label a UI shows (display label, else the name).
    pub fn label(&self) -> &str {
        self.meta.display_label.as_deref().unwrap_or(&self.name)
    }

    /// Names of the top-level parameters, in schema order.
    pub fn parameter_names(&self) -> Vec<&str> {
        self.parameters
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }
}
