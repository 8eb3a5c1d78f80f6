//! The tool catalog: a YAML file (`tool_catalog.yaml`) that is the source of truth for docs,
//! tests and monitoring. [`export`] writes specs as a catalog, [`parse`]/[`load`] read one back
//! (errors carry line and column), [`check`] reports drift between a catalog and the code, and
//! [`diff`] classifies the changes between two catalogs as breaking or compatible.
//!
//! ```
//! use toolwright_catalog::catalog;
//! use toolwright_core::ToolSpec;
//! let specs = vec![ToolSpec::new("get_time", "Current time. Use this when the user asks the time.",
//!     serde_json::json!({"type": "object", "properties": {}}))];
//! let yaml = catalog::export(&specs, "demo").unwrap();
//! let back = catalog::parse(&yaml, None).unwrap();
//! assert!(catalog::check(&back, &specs).is_empty());
//! ```

use crate::schema::{self, child};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use toolwright_core::{SideEffects, ToolMeta, ToolSpec};

/// The catalog format version this crate writes and reads.
pub const CATALOG_VERSION: u32 = 1;

/// A whole catalog file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Format version (currently 1).
    pub version: u32,
    /// Name of the agent or toolset the catalog describes.
    pub agent: String,
    /// The tools, in registry order.
    pub tools: Vec<CatalogTool>,
}

/// One tool in a catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogTool {
    /// The tool's name.
    pub name: String,
    /// Grouping.
    #[serde(default)]
    pub category: Option<String>,
    /// The tool's version (a number such as `1.2` is read as the string "1.2").
    #[serde(default, deserialize_with = "string_or_number")]
    pub version: Option<String>,
    /// What the tool does and when to use it.
    pub description: String,
    /// `none | read | write | destructive`.
    pub side_effects: SideEffects,
    /// Whether repeated calls must be deduplicated (the tool is declared idempotent and the runtime
    /// replays a stored result for the same idempotency key).
    #[serde(default)]
    pub idempotency_required: bool,
    /// Attempts allowed per step.
    #[serde(default = "default_retries")]
    pub max_retries: u32,
    /// Backends the tool depends on.
    #[serde(default)]
    pub dependencies: Vec<String>,
    /// Tool to call when a dependency is unavailable.
    #[serde(default)]
    pub fallback_tool: Option<String>,
    /// Who maintains the tool.
    #[serde(default)]
    pub owner: Option<String>,
    /// Expected latency in milliseconds.
    #[serde(default)]
    pub sla_ms: Option<u64>,
    /// Label a UI shows while the tool runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_label: Option<String>,
    /// Deadline for one call in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The tool must run alone.
    #[serde(default, skip_serializing_if = "is_false")]
    pub atomic: bool,
    /// A person must approve each call.
    #[serde(default, skip_serializing_if = "is_false")]
    pub requires_confirmation: bool,
    /// Output budget in serialized bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_limit_bytes: Option<usize>,
    /// Example argument objects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// Lint rule ids allowed for this tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lint_allow: Vec<String>,
    /// How often the tool may run (`{calls: 10, period_ms: 1000, burst: 10, per_caller: false}`),
    /// held across replicas that share a store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<toolwright_core::RateLimit>,
    /// JSON Schema (2020-12) of the arguments.
    pub parameters: Value,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn default_retries() -> u32 {
    toolwright_core::DEFAULT_MAX_RETRIES
}

fn string_or_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    d.deserialize_option(OptV)
}

struct OptV;
impl<'de> serde::de::Visitor<'de> for OptV {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a version string or number")
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(ScalarV)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
}

struct ScalarV;
impl serde::de::Visitor<'_> for ScalarV {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a version string or number")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
}

impl CatalogTool {
    /// The catalog entry of a spec.
    pub fn from_spec(spec: &ToolSpec) -> CatalogTool {
        let m = &spec.meta;
        CatalogTool {
            name: spec.name.clone(),
            category: m.category.clone(),
            version: m.version.clone(),
            description: spec.description.clone(),
            side_effects: m.side_effects,
            idempotency_required: m.idempotent,
            max_retries: spec.max_retries(),
            dependencies: m.dependencies.clone(),
            fallback_tool: m.fallback.clone(),
            owner: m.owner.clone(),
            sla_ms: m.sla_ms,
            display_label: m.display_label.clone(),
            timeout_ms: m.timeout_ms,
            atomic: m.atomic,
            requires_confirmation: m.requires_confirmation,
            output_limit_bytes: m.output_limit_bytes,
            examples: m.examples.clone(),
            lint_allow: m.lint_allow.clone(),
            rate_limit: m.rate_limit,
            parameters: spec.parameters.clone(),
        }
    }

    /// The spec this entry describes.
    pub fn to_spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.parameters.clone(),
            output_schema: None,
            meta: ToolMeta {
                display_label: self.display_label.clone(),
                timeout_ms: self.timeout_ms,
                atomic: self.atomic,
                side_effects: self.side_effects,
                idempotent: self.idempotency_required,
                max_retries: Some(self.max_retries),
                fallback: self.fallback_tool.clone(),
                requires_confirmation: self.requires_confirmation,
                category: self.category.clone(),
                server: None,
                version: self.version.clone(),
                owner: self.owner.clone(),
                sla_ms: self.sla_ms,
                examples: self.examples.clone(),
                output_limit_bytes: self.output_limit_bytes,
                dependencies: self.dependencies.clone(),
                lint_allow: self.lint_allow.clone(),
                rate_limit: self.rate_limit,
            },
        }
    }
}

impl Catalog {
    /// A catalog of `specs`.
    pub fn from_specs(specs: &[ToolSpec], agent: &str) -> Catalog {
        Catalog {
            version: CATALOG_VERSION,
            agent: agent.to_string(),
            tools: specs.iter().map(CatalogTool::from_spec).collect(),
        }
    }

    /// The specs of the catalog's tools.
    pub fn to_specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(CatalogTool::to_spec).collect()
    }
}

/// A catalog that could not be read: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CatalogError {
    /// The file, when known.
    pub file: Option<String>,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
        }
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{l}:{c}: ")?,
            (Some(l), None) => write!(f, "{l}: ")?,
            _ if self.file.is_some() => f.write_str(" ")?,
            _ => {}
        }
        f.write_str(&self.message)
    }
}

impl CatalogError {
    fn at(
        file: Option<&str>,
        loc: Option<serde_saphyr::Location>,
        message: impl Into<String>,
    ) -> Self {
        let loc = loc.filter(|l| l.line() > 0);
        CatalogError {
            file: file.map(str::to_string),
            line: loc.map(|l| l.line()),
            column: loc.map(|l| l.column()),
            message: message.into(),
        }
    }
}

/// The catalog of `specs` as YAML.
///
/// # Errors
/// Only if the YAML writer fails (it does not for JSON-like values).
pub fn export(specs: &[ToolSpec], agent: &str) -> Result<String, CatalogError> {
    to_yaml(&Catalog::from_specs(specs, agent))
}

/// `catalog` as YAML.
///
/// # Errors
/// Only if the YAML writer fails.
pub fn to_yaml(catalog: &Catalog) -> Result<String, CatalogError> {
    serde_saphyr::to_string(catalog)
        .map_err(|e| CatalogError::at(None, None, format!("cannot write YAML: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    version: serde_saphyr::Spanned<u32>,
    agent: String,
    tools: Vec<serde_saphyr::Spanned<CatalogTool>>,
}

/// Reads a catalog from YAML text. `file` names the source in errors.
///
/// Besides YAML and shape errors (unknown keys, wrong types, missing fields), it rejects an
/// unknown format version, invalid or duplicate tool names and parameter schemas that are not
/// objects. Every error carries the line and column when the parser knows them.
///
/// # Errors
/// [`CatalogError`] with the position of the problem.
pub fn parse(text: &str, file: Option<&str>) -> Result<Catalog, CatalogError> {
    let raw: RawCatalog = serde_saphyr::from_str(text).map_err(|e| {
        let message = e.render_with_options(serde_saphyr::render_options! {
            snippets: serde_saphyr::SnippetMode::Off,
        });
        CatalogError::at(file, e.location(), strip_location_suffix(&message))
    })?;
    if raw.version.value != CATALOG_VERSION {
        return Err(CatalogError::at(
            file,
            Some(raw.version.referenced),
            format!(
                "unsupported catalog version {} (this toolwright reads version {CATALOG_VERSION})",
                raw.version.value
            ),
        ));
    }
    let mut seen = BTreeSet::new();
    let mut tools = Vec::with_capacity(raw.tools.len());
    for t in raw.tools {
        let loc = Some(t.referenced);
        let tool = t.value;
        if !toolwright_core::is_valid_tool_name(&tool.name) {
            return Err(CatalogError::at(
                file,
                loc,
                format!(
                    "invalid tool name `{}`: use 1-64 letters, digits, `_`, `.` or `-`",
                    tool.name
                ),
            ));
        }
        if !seen.insert(tool.name.clone()) {
            return Err(CatalogError::at(
                file,
                loc,
                format!("duplicate tool `{}`", tool.name),
            ));
        }
        if !tool.parameters.is_object() {
            return Err(CatalogError::at(
                file,
                loc,
                format!(
                    "tool `{}`: `parameters` must be a JSON Schema object",
                    tool.name
                ),
            ));
        }
        tools.push(tool);
    }
    Ok(Catalog {
        version: raw.version.value,
        agent: raw.agent,
        tools,
    })
}

/// serde-saphyr appends " at line L column C" to plain messages; we report those separately.
fn strip_location_suffix(message: &str) -> String {
    let m = message.trim();
    match m.rfind(" at line ") {
        Some(i) if m.get(i..).is_some_and(|rest| rest.contains("column")) => {
            m.get(..i).unwrap_or(m).to_string()
        }
        _ => m.to_string(),
    }
}

/// Reads a catalog file.
///
/// # Errors
/// The file cannot be read, or [`parse`] fails.
pub fn load_catalog(path: &Path) -> Result<Catalog, CatalogError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| CatalogError::at(Some(&name), None, format!("cannot read the file: {e}")))?;
    parse(&text, Some(&name))
}

/// Reads a catalog file as specs (for `--catalog FILE`).
///
/// # Errors
/// As [`load_catalog`].
pub fn load(path: &Path) -> Result<Vec<ToolSpec>, CatalogError> {
    load_catalog(path).map(|c| c.to_specs())
}

/// What changed, in a [`Change`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A tool is gone.
    ToolRemoved,
    /// A new tool.
    ToolAdded,
    /// A parameter is gone.
    ParameterRemoved,
    /// A parameter was renamed (removed + added with the same schema).
    ParameterRenamed,
    /// A new optional parameter.
    ParameterAdded,
    /// A new required parameter.
    RequiredParameterAdded,
    /// An optional parameter became required.
    BecameRequired,
    /// A required parameter became optional.
    BecameOptional,
    /// Enum values were removed (or an enum was added).
    EnumNarrowed,
    /// Enum values were added (or the enum was removed).
    EnumWidened,
    /// The type changed to one that rejects values accepted before.
    TypeChanged,
    /// The type now accepts more values.
    TypeWidened,
    /// A bound or pattern now rejects values accepted before.
    ConstraintTightened,
    /// A bound or pattern now accepts more values.
    ConstraintLoosened,
    /// Extra keys were allowed and no longer are.
    ClosedObject,
    /// Another keyword changed in a way that may reject calls (review by hand).
    SchemaChanged,
    /// A description, title, default or example changed.
    DocumentationChanged,
    /// Metadata (side effects, retries, owner, ...) changed.
    MetadataChanged,
}

/// One difference between two catalogs (or a catalog and the code).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The tool.
    pub tool: String,
    /// JSON Pointer into the tool's parameter schema, or `#field` for metadata, `""` for the tool.
    pub pointer: String,
    /// What changed.
    pub kind: ChangeKind,
    /// Whether existing callers may break.
    pub breaking: bool,
    /// One sentence.
    pub message: String,
}

/// How the two sides of a comparison are called in messages.
#[derive(Debug, Clone, Copy)]
struct Sides {
    old: &'static str,
    new: &'static str,
}

/// The changes from `old` to `new`, breaking ones first within each tool, tools in `old`'s order
/// then new tools.
///
/// Breaking: a tool removed, a parameter removed or renamed, a new required parameter, an
/// optional parameter made required, an enum narrowed, a type changed, a bound tightened, an
/// object closed, and other keyword changes that may reject calls. Everything else is compatible.
pub fn diff(old: &Catalog, new: &Catalog) -> Vec<Change> {
    compare(
        &old.tools,
        &new.tools,
        Sides {
            old: "old catalog",
            new: "new catalog",
        },
    )
}

/// Drift between a catalog (the file) and the code's specs: every difference, with messages
/// that say which side has what. Empty when the catalog is up to date.
pub fn check(catalog: &Catalog, specs: &[ToolSpec]) -> Vec<Change> {
    let code: Vec<CatalogTool> = specs.iter().map(CatalogTool::from_spec).collect();
    compare(
        &catalog.tools,
        &code,
        Sides {
            old: "catalog",
            new: "code",
        },
    )
}

/// Reads `path` and reports its drift against `specs` (see [`check`]).
///
/// # Errors
/// As [`load_catalog`].
pub fn check_file(path: &Path, specs: &[ToolSpec]) -> Result<Vec<Change>, CatalogError> {
    Ok(check(&load_catalog(path)?, specs))
}

/// Whether any change is breaking.
pub fn has_breaking(changes: &[Change]) -> bool {
    changes.iter().any(|c| c.breaking)
}

fn compare(old: &[CatalogTool], new: &[CatalogTool], sides: Sides) -> Vec<Change> {
    let mut out = Vec::new();
    for o in old {
        match new.iter().find(|n| n.name == o.name) {
            None => out.push(Change {
                tool: o.name.clone(),
                pointer: String::new(),
                kind: ChangeKind::ToolRemoved,
                breaking: true,
                message: format!(
                    "tool `{}` is in the {} but not in the {}",
                    o.name, sides.old, sides.new
                ),
            }),
            Some(n) => {
                let mut changes = Vec::new();
                compare_tool(o, n, &mut changes);
                changes.sort_by_key(|c| !c.breaking);
                out.extend(changes);
            }
        }
    }
    for n in new {
        if !old.iter().any(|o| o.name == n.name) {
            out.push(Change {
                tool: n.name.clone(),
                pointer: String::new(),
                kind: ChangeKind::ToolAdded,
                breaking: false,
                message: format!(
                    "tool `{}` is in the {} but not in the {}",
                    n.name, sides.new, sides.old
                ),
            });
        }
    }
    out
}

fn compare_tool(o: &CatalogTool, n: &CatalogTool, out: &mut Vec<Change>) {
    let tool = o.name.as_str();
    if o.description != n.description {
        out.push(change(
            tool,
            "#description",
            ChangeKind::DocumentationChanged,
            false,
            "description changed".into(),
        ));
    }
    // Metadata: compare the serialized entries field by field, minus the schema and description.
    let (ov, nv) = (meta_fields(o), meta_fields(n));
    for (k, a) in &ov {
        let b = nv
            .iter()
            .find(|(nk, _)| nk == k)
            .map(|(_, v)| v)
            .unwrap_or(&Value::Null);
        if a != b {
            out.push(change(
                tool,
                &format!("#{k}"),
                ChangeKind::MetadataChanged,
                false,
                format!("{k} changed from {} to {}", short(a), short(b)),
            ));
        }
    }
    for (k, b) in &nv {
        if !ov.iter().any(|(ok, _)| ok == k) {
            out.push(change(
                tool,
                &format!("#{k}"),
                ChangeKind::MetadataChanged,
                false,
                format!("{k} set to {}", short(b)),
            ));
        }
    }
    let mut p1 = Vec::new();
    let mut p2 = Vec::new();
    let a = schema::inline_refs(&o.parameters, &mut p1);
    let b = schema::inline_refs(&n.parameters, &mut p2);
    compare_schema(tool, &a, &b, "", out, 0);
}

fn meta_fields(t: &CatalogTool) -> Vec<(String, Value)> {
    match serde_json::to_value(t) {
        Ok(Value::Object(m)) => m
            .into_iter()
            .filter(|(k, _)| k != "parameters" && k != "description" && k != "name")
            .collect(),
        _ => Vec::new(),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

fn change(tool: &str, pointer: &str, kind: ChangeKind, breaking: bool, message: String) -> Change {
    Change {
        tool: tool.to_string(),
        pointer: pointer.to_string(),
        kind,
        breaking,
        message,
    }
}

/// `/properties/a/properties/b` → `a.b`; `/properties/a/items/properties/b` → `a[].b`.
fn param_path(ptr: &str) -> String {
    let mut out = String::new();
    let mut segs = ptr.split('/').skip(1).peekable();
    while let Some(s) = segs.next() {
        match s {
            "properties" => {
                if let Some(name) = segs.next() {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&name.replace("~1", "/").replace("~0", "~"));
                }
            }
            "items" => out.push_str("[]"),
            other => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(other);
            }
        }
    }
    if out.is_empty() {
        "(arguments)".to_string()
    } else {
        out
    }
}

/// Keywords handled explicitly by [`compare_schema`].
const HANDLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "pattern",
    "multipleOf",
];
/// Keywords that document and never reject.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "example",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
];

fn type_accepts(types: &[String], t: &str) -> bool {
    types.is_empty()
        || types
            .iter()
            .any(|x| x == t || (x == "number" && t == "integer"))
}

/// One schema node compared: the tool, the node's pointer and parameter name, and the node's
/// keywords before (`am`) and after (`bm`).
#[derive(Clone, Copy)]
struct Node<'a> {
    tool: &'a str,
    ptr: &'a str,
    name: &'a str,
    am: &'a serde_json::Map<String, Value>,
    bm: &'a serde_json::Map<String, Value>,
}

/// A [`Node`]'s tool, pointer and name and its keywords before and after.
type NodeParts<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a serde_json::Map<String, Value>,
    &'a serde_json::Map<String, Value>,
);

impl<'a> Node<'a> {
    /// Its fields, in the order they are declared.
    fn parts(&self) -> NodeParts<'a> {
        (self.tool, self.ptr, self.name, self.am, self.bm)
    }
}

fn compare_schema(
    tool: &str,
    a: &Value,
    b: &Value,
    ptr: &str,
    out: &mut Vec<Change>,
    depth: usize,
) {
    if depth > schema::MAX_DEPTH || a == b {
        return;
    }
    let name = param_path(ptr);
    let (Value::Object(am), Value::Object(bm)) = (a, b) else {
        out.push(change(
            tool,
            ptr,
            ChangeKind::SchemaChanged,
            true,
            format!("`{name}`: schema changed"),
        ));
        return;
    };
    // Types.
    compare_types(tool, ptr, &name, a, b, out);
    // Enums (and const as a one-value enum).
    let node = Node {
        tool,
        ptr,
        name: &name,
        am,
        bm,
    };
    compare_enums(&node, out);
    compare_bounds(&node, out);
    compare_pattern_and_step(&node, out);
    // Closed objects.
    compare_additional_properties(&node, out, depth);
    // Properties.
    compare_properties(tool, a, b, ptr, out, depth);
    compare_items(&node, out, depth);
    // Everything else.
    compare_other_keywords(&node, out);
}

/// The type change from schema `a` to `b` of parameter `name` at `ptr`: widened (every old type
/// still accepted) or changed (breaking).
fn compare_types(tool: &str, ptr: &str, name: &str, a: &Value, b: &Value, out: &mut Vec<Change>) {
    let (ta, tb) = (schema::types(a), schema::types(b));
    if ta != tb {
        let widened = ta.iter().all(|t| type_accepts(&tb, t)) && !ta.is_empty() || tb.is_empty();
        let show = |t: &[String]| {
            if t.is_empty() {
                "any".to_string()
            } else {
                t.join(" | ")
            }
        };
        if widened {
            out.push(change(
                tool,
                ptr,
                ChangeKind::TypeWidened,
                false,
                format!("`{name}`: type widened from {} to {}", show(&ta), show(&tb)),
            ));
        } else {
            out.push(change(
                tool,
                ptr,
                ChangeKind::TypeChanged,
                true,
                format!("`{name}`: type changed from {} to {}", show(&ta), show(&tb)),
            ));
        }
    }
}

/// The changes to the allowed values (`enum`, or `const` as a one-value enum) of parameter
/// `name` at `ptr`: values removed or a new restriction narrow it; values added or the
/// restriction dropped widen it.
fn compare_enums(node: &Node<'_>, out: &mut Vec<Change>) {
    let (tool, ptr, name, am, bm) = node.parts();
    let values = |m: &serde_json::Map<String, Value>| -> Option<Vec<Value>> {
        m.get("enum")
            .and_then(Value::as_array)
            .cloned()
            .or_else(|| m.get("const").map(|c| vec![c.clone()]))
    };
    match (values(am), values(bm)) {
        (Some(ea), Some(eb)) => {
            let removed: Vec<String> = ea
                .iter()
                .filter(|v| !eb.contains(v))
                .map(Value::to_string)
                .collect();
            let added: Vec<String> = eb
                .iter()
                .filter(|v| !ea.contains(v))
                .map(Value::to_string)
                .collect();
            if !removed.is_empty() {
                out.push(change(
                    tool,
                    ptr,
                    ChangeKind::EnumNarrowed,
                    true,
                    format!("`{name}`: enum values removed: {}", removed.join(", ")),
                ));
            }
            if !added.is_empty() {
                out.push(change(
                    tool,
                    ptr,
                    ChangeKind::EnumWidened,
                    false,
                    format!("`{name}`: enum values added: {}", added.join(", ")),
                ));
            }
        }
        (None, Some(eb)) => {
            let list: Vec<String> = eb.iter().map(Value::to_string).collect();
            out.push(change(
                tool,
                ptr,
                ChangeKind::EnumNarrowed,
                true,
                format!("`{name}`: now restricted to {}", list.join(", ")),
            ));
        }
        (Some(_), None) => {
            out.push(change(
                tool,
                ptr,
                ChangeKind::EnumWidened,
                false,
                format!("`{name}`: enum restriction removed"),
            ));
        }
        (None, None) => {}
    }
}

/// The numeric, length, item-count and property-count bounds of parameter `name` at `ptr` that
/// were tightened (breaking) or loosened between `am` and `bm`.
fn compare_bounds(node: &Node<'_>, out: &mut Vec<Change>) {
    let (tool, ptr, name, am, bm) = node.parts();
    // Bounds: for lower bounds a larger value is tighter; for upper bounds a smaller one.
    for (key, lower) in [
        ("minimum", true),
        ("exclusiveMinimum", true),
        ("minLength", true),
        ("minItems", true),
        ("minProperties", true),
        ("maximum", false),
        ("exclusiveMaximum", false),
        ("maxLength", false),
        ("maxItems", false),
        ("maxProperties", false),
    ] {
        let (x, y) = (
            am.get(key).and_then(Value::as_f64),
            bm.get(key).and_then(Value::as_f64),
        );
        let tighter = match (x, y) {
            (None, Some(_)) => Some(true),
            (Some(_), None) => Some(false),
            (Some(x), Some(y)) if x != y => Some(if lower { y > x } else { y < x }),
            _ => None,
        };
        if let Some(t) = tighter {
            let fmt = |v: Option<f64>| v.map_or("none".to_string(), |v| v.to_string());
            let (kind, word) = if t {
                (ChangeKind::ConstraintTightened, "tightened")
            } else {
                (ChangeKind::ConstraintLoosened, "loosened")
            };
            out.push(change(
                tool,
                ptr,
                kind,
                t,
                format!("`{name}`: {key} {word} ({} → {})", fmt(x), fmt(y)),
            ));
        }
    }
}

/// A `pattern` or `multipleOf` of parameter `name` at `ptr` set or changed (breaking: it may
/// reject what passed) or removed between `am` and `bm`.
fn compare_pattern_and_step(node: &Node<'_>, out: &mut Vec<Change>) {
    let (tool, ptr, name, am, bm) = node.parts();
    for key in ["pattern", "multipleOf"] {
        match (am.get(key), bm.get(key)) {
            (x, Some(y)) if x != Some(y) => out.push(change(
                tool,
                ptr,
                ChangeKind::ConstraintTightened,
                true,
                format!("`{name}`: {key} set to {}", short(y)),
            )),
            (Some(_), None) => out.push(change(
                tool,
                ptr,
                ChangeKind::ConstraintLoosened,
                false,
                format!("`{name}`: {key} removed"),
            )),
            _ => {}
        }
    }
}

/// The change to which extra keys the object `name` at `ptr` accepts: closed (breaking), a
/// changed schema for them (compared in turn), or otherwise loosened.
fn compare_additional_properties(node: &Node<'_>, out: &mut Vec<Change>, depth: usize) {
    let (tool, ptr, name, am, bm) = node.parts();
    let open = |m: &serde_json::Map<String, Value>| {
        !matches!(m.get("additionalProperties"), Some(Value::Bool(false)))
    };
    if open(am) && !open(bm) {
        out.push(change(
            tool,
            ptr,
            ChangeKind::ClosedObject,
            true,
            format!("`{name}`: extra keys are no longer accepted"),
        ));
    } else if am.get("additionalProperties") != bm.get("additionalProperties") {
        match (
            am.get("additionalProperties"),
            bm.get("additionalProperties"),
        ) {
            (Some(x @ Value::Object(_)), Some(y @ Value::Object(_))) => compare_schema(
                tool,
                x,
                y,
                &child(ptr, "additionalProperties"),
                out,
                depth + 1,
            ),
            _ => out.push(change(
                tool,
                ptr,
                ChangeKind::ConstraintLoosened,
                false,
                format!("`{name}`: additionalProperties loosened"),
            )),
        }
    }
}

/// The item schemas of the array `name` at `ptr` compared in turn, or an item schema added
/// (breaking) or removed.
fn compare_items(node: &Node<'_>, out: &mut Vec<Change>, depth: usize) {
    let (tool, ptr, name, am, bm) = node.parts();
    if let (Some(x), Some(y)) = (am.get("items"), bm.get("items")) {
        compare_schema(tool, x, y, &child(ptr, "items"), out, depth + 1);
    } else if am.get("items") != bm.get("items") {
        let breaking = bm.contains_key("items");
        let kind = if breaking {
            ChangeKind::ConstraintTightened
        } else {
            ChangeKind::ConstraintLoosened
        };
        out.push(change(
            tool,
            ptr,
            kind,
            breaking,
            format!(
                "`{name}`: item schema {}",
                if breaking { "added" } else { "removed" }
            ),
        ));
    }
}

/// Every changed keyword of `name` at `ptr` not handled explicitly: annotations are documentation
/// changes; anything else is breaking, to be reviewed.
fn compare_other_keywords(node: &Node<'_>, out: &mut Vec<Change>) {
    let (tool, ptr, name, am, bm) = node.parts();
    let keys: BTreeSet<&String> = am.keys().chain(bm.keys()).collect();
    for k in keys {
        if HANDLED.contains(&k.as_str()) || am.get(k) == bm.get(k) {
            continue;
        }
        if ANNOTATIONS.contains(&k.as_str()) {
            out.push(change(
                tool,
                ptr,
                ChangeKind::DocumentationChanged,
                false,
                format!("`{name}`: {k} changed"),
            ));
        } else {
            out.push(change(
                tool,
                ptr,
                ChangeKind::SchemaChanged,
                true,
                format!("`{name}`: `{k}` changed (may reject calls that passed before; review it)"),
            ));
        }
    }
}

fn strip_docs(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !ANNOTATIONS.contains(&k.as_str()))
                .map(|(k, x)| (k.clone(), strip_docs(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn compare_properties(
    tool: &str,
    a: &Value,
    b: &Value,
    ptr: &str,
    out: &mut Vec<Change>,
    depth: usize,
) {
    let empty = serde_json::Map::new();
    let pa = schema::properties(a).unwrap_or(&empty);
    let pb = schema::properties(b).unwrap_or(&empty);
    let (ra, rb) = (schema::required(a), schema::required(b));
    let removed: Vec<&String> = pa.keys().filter(|k| !pb.contains_key(*k)).collect();
    let mut added: Vec<&String> = pb.keys().filter(|k| !pa.contains_key(*k)).collect();
    for r in removed {
        let rp = child(&child(ptr, "properties"), r);
        let old_schema = pa.get(r).map(strip_docs);
        // A rename: an added parameter with the same schema (descriptions aside).
        let twin = added
            .iter()
            .position(|n| pb.get(*n).map(strip_docs) == old_schema)
            .map(|i| added.remove(i));
        match twin {
            Some(n) => out.push(change(
                tool,
                &rp,
                ChangeKind::ParameterRenamed,
                true,
                format!(
                    "parameter `{}` renamed to `{}`",
                    param_path(&rp),
                    param_path(&child(&child(ptr, "properties"), n))
                ),
            )),
            None => out.push(change(
                tool,
                &rp,
                ChangeKind::ParameterRemoved,
                true,
                format!("parameter `{}` removed", param_path(&rp)),
            )),
        }
    }
    for n in added {
        let np = child(&child(ptr, "properties"), n);
        if rb.contains(n) {
            out.push(change(
                tool,
                &np,
                ChangeKind::RequiredParameterAdded,
                true,
                format!("new required parameter `{}`", param_path(&np)),
            ));
        } else {
            out.push(change(
                tool,
                &np,
                ChangeKind::ParameterAdded,
                false,
                format!("new optional parameter `{}`", param_path(&np)),
            ));
        }
    }
    for (k, x) in pa {
        let Some(y) = pb.get(k) else { continue };
        let kp = child(&child(ptr, "properties"), k);
        match (ra.contains(k), rb.contains(k)) {
            (false, true) => out.push(change(
                tool,
                &kp,
                ChangeKind::BecameRequired,
                true,
                format!("parameter `{}` is now required", param_path(&kp)),
            )),
            (true, false) => out.push(change(
                tool,
                &kp,
                ChangeKind::BecameOptional,
                false,
                format!("parameter `{}` is now optional", param_path(&kp)),
            )),
            _ => {}
        }
        compare_schema(tool, x, y, &kp, out, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> ToolSpec {
        let mut s = ToolSpec::new(
            "convert_currency",
            "Convert an amount: between currencies # at a dated rate. Use this when the user asks for an exchange.",
            json!({
                "type": "object",
                "properties": {
                    "amount": {"type": "number", "minimum": 0, "description": "How much."},
                    "from": {"type": "string", "enum": ["USD", "EUR", "yes", "no", "null", "1.0", "~", "on"]},
                    "to": {"type": "string", "description": "Target: ISO code"},
                    "round": {"type": "integer", "minimum": 0, "maximum": 8}
                },
                "required": ["amount", "from", "to"],
                "additionalProperties": false
            }),
        )
        .side_effects(SideEffects::Read);
        s.meta.version = Some("1.0".into());
        s.meta.category = Some("finance".into());
        s.meta.owner = Some("team-x".into());
        s.meta.sla_ms = Some(200);
        s.meta.dependencies = vec!["rates-table".into()];
        s.meta.examples = vec![json!({"amount": 1.5, "from": "USD", "to": "EUR"})];
        s.meta.display_label = Some("Converting currency".into());
        s
    }

    fn cat(s: ToolSpec) -> Catalog {
        Catalog::from_specs(&[s], "demo")
    }

    #[test]
    fn export_round_trips() {
        let yaml = export(&[spec()], "demo").unwrap();
        for key in [
            "version: 1",
            "agent: demo",
            "side_effects: read",
            "idempotency_required: false",
            "max_retries: 3",
            "fallback_tool:",
            "sla_ms: 200",
            "parameters:",
        ] {
            assert!(yaml.contains(key), "{key} missing in\n{yaml}");
        }
        let back = parse(&yaml, None).unwrap();
        assert_eq!(back, cat(spec()));
        assert!(check(&back, &[spec()]).is_empty());
        insta::assert_snapshot!("catalog_export", yaml);
    }

    #[test]
    fn check_reports_drift() {
        let file = cat(spec());
        let mut changed = spec();
        changed.parameters["properties"]["to"]["type"] = json!("integer");
        changed.meta.sla_ms = Some(500);
        let extra = ToolSpec::new("get_time", "t", json!({"type": "object"}));
        let drift = check(&file, &[changed, extra]);
        assert!(
            drift
                .iter()
                .any(|c| c.kind == ChangeKind::TypeChanged && c.pointer == "/properties/to")
        );
        assert!(
            drift
                .iter()
                .any(|c| c.kind == ChangeKind::MetadataChanged && c.pointer == "#sla_ms")
        );
        assert!(drift.iter().any(|c| c.kind == ChangeKind::ToolAdded
            && c.message.contains("in the code but not in the catalog")));
        let missing = check(&file, &[]);
        assert_eq!(missing.len(), 1);
        assert!(
            missing[0]
                .message
                .contains("in the catalog but not in the code")
        );
    }

    fn diff_of(f: impl FnOnce(&mut ToolSpec)) -> Vec<Change> {
        let mut new = spec();
        f(&mut new);
        diff(&cat(spec()), &cat(new))
    }

    fn kinds(changes: &[Change]) -> Vec<(ChangeKind, bool)> {
        changes.iter().map(|c| (c.kind, c.breaking)).collect()
    }

    #[test]
    fn diff_classifies_changes() {
        use ChangeKind::*;
        let p = |s: &mut ToolSpec| s.parameters["properties"].as_object_mut().unwrap().clone();
        let _ = p;
        assert!(diff_of(|_| {}).is_empty());
        assert_eq!(
            kinds(&diff_of(|s| {
                s.parameters["properties"]
                    .as_object_mut()
                    .unwrap()
                    .remove("round");
            })),
            [(ParameterRemoved, true)]
        );
        let renamed = diff_of(|s| {
            let props = s.parameters["properties"].as_object_mut().unwrap();
            let r = props.remove("round").unwrap();
            props.insert("decimals".into(), r);
        });
        assert_eq!(kinds(&renamed), [(ParameterRenamed, true)]);
        assert!(renamed[0].message.contains("`round` renamed to `decimals`"));
        assert_eq!(
            kinds(&diff_of(|s| {
                s.parameters["properties"]["fee"] = json!({"type": "number"});
                s.parameters["required"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!("fee"));
            })),
            [(RequiredParameterAdded, true)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["note"] = json!({"type": "string"})
            )),
            [(ParameterAdded, false)]
        );
        assert_eq!(
            kinds(&diff_of(|s| s.parameters["required"]
                .as_array_mut()
                .unwrap()
                .push(json!("round")))),
            [(BecameRequired, true)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["required"] = json!(["amount", "from"])
            )),
            [(BecameOptional, false)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["from"]["enum"] = json!(["USD"])
            )),
            [(EnumNarrowed, true)]
        );
        assert_eq!(
            kinds(&diff_of(|s| s.parameters["properties"]["from"]["enum"]
                .as_array_mut()
                .unwrap()
                .push(json!("JPY")))),
            [(EnumWidened, false)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["to"]["enum"] = json!(["EUR"])
            )),
            [(EnumNarrowed, true)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["amount"]["type"] = json!("string")
            )),
            [(TypeChanged, true)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["round"]["type"] = json!("number")
            )),
            [(TypeWidened, false)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["round"]["type"] = json!(["integer", "null"])
            )),
            [(TypeWidened, false)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["round"]["maximum"] = json!(4)
            )),
            [(ConstraintTightened, true)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["round"]["maximum"] = json!(10)
            )),
            [(ConstraintLoosened, false)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["to"]["description"] = json!("x")
            )),
            [(DocumentationChanged, false)]
        );
        assert_eq!(
            kinds(&diff_of(|s| s.description = "other".into())),
            [(DocumentationChanged, false)]
        );
        assert_eq!(
            kinds(&diff_of(|s| s.meta.side_effects = SideEffects::Write)),
            [(MetadataChanged, false)]
        );
        assert_eq!(
            kinds(&diff_of(
                |s| s.parameters["properties"]["to"]["anyOf"] = json!([{"minLength": 3}])
            )),
            [(SchemaChanged, true)]
        );
        let gone = diff(&cat(spec()), &Catalog::from_specs(&[], "demo"));
        assert_eq!(kinds(&gone), [(ToolRemoved, true)]);
        assert!(has_breaking(&gone));
    }

    #[test]
    fn diff_sees_through_refs_and_nesting() {
        let a = ToolSpec::new(
            "t",
            "d",
            json!({"type": "object", "properties": {"addr": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "object", "properties": {"zip": {"type": "string"}, "city": {"type": "string"}}, "required": ["zip"]}}}),
        );
        let mut b = a.clone();
        b.parameters["$defs"]["A"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("zip");
        let changes = diff(&cat(a.clone()), &cat(b));
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].pointer, "/properties/addr/properties/zip");
        assert!(changes[0].message.contains("`addr.zip` removed"));
        // Moving a definition inline is not a change.
        let mut c = a.clone();
        c.parameters = json!({"type": "object", "properties": {"addr": {"type": "object",
            "properties": {"zip": {"type": "string"}, "city": {"type": "string"}}, "required": ["zip"]}}});
        assert!(diff(&cat(a), &cat(c)).is_empty());
    }

    #[test]
    fn errors_have_line_and_column() {
        let bad_yaml = "version: 1\nagent: demo\ntools:\n  - name: [unclosed\n";
        let e = parse(bad_yaml, Some("c.yaml")).unwrap_err();
        assert!(e.line.is_some(), "{e:?}");
        assert!(e.to_string().starts_with("c.yaml:"), "{e}");

        let yaml = export(&[spec()], "demo").unwrap();
        let unknown = yaml.replacen("  owner: team-x", "  owner: team-x\n  colour: blue", 1);
        let e = parse(&unknown, None).unwrap_err();
        assert!(e.message.contains("colour"), "{e:?}");
        let line = unknown.lines().position(|l| l.contains("colour")).unwrap() as u64 + 1;
        assert_eq!(e.line, Some(line), "{e:?}");
        assert_eq!(e.column, Some(3), "{e:?}");

        let wrong_type = yaml.replacen("max_retries: 3", "max_retries: lots", 1);
        let e = parse(&wrong_type, None).unwrap_err();
        let line = wrong_type.lines().position(|l| l.contains("lots")).unwrap() as u64 + 1;
        assert_eq!(e.line, Some(line), "{e:?}");

        let bad_enum = yaml.replacen("side_effects: read", "side_effects: sometimes", 1);
        let e = parse(&bad_enum, None).unwrap_err();
        assert!(e.message.contains("sometimes"), "{e:?}");
        assert!(e.line.is_some());

        let dup = format!("{yaml}{}", yaml.split_once("tools:\n").unwrap().1);
        let e = parse(&dup, None).unwrap_err();
        assert!(e.message.contains("duplicate tool"), "{e:?}");
        assert!(e.line.unwrap() > 5, "{e:?}");

        let version = yaml.replacen("version: 1", "version: 9", 1);
        let e = parse(&version, None).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(10)), "{e:?}");

        let not_object = yaml.replacen("parameters:", "parameters: 3\n  old_parameters:", 1);
        assert!(parse(&not_object, None).is_err());

        for text in [
            "",
            "---",
            "[]",
            "version: 1",
            "\u{0}\u{1}",
            "tools: !!binary AAAA",
            "a: &x [*x]",
            ":\n:\n:",
        ] {
            assert!(parse(text, None).is_err(), "{text:?}");
        }
    }

    #[test]
    fn numeric_versions_are_read_as_strings() {
        let yaml = export(&[spec()], "demo").unwrap();
        let numeric = yaml.replacen("version: '1.0'", "version: 1.5", 1).replacen(
            "version: \"1.0\"",
            "version: 1.5",
            1,
        );
        let c = parse(&numeric, None).unwrap();
        assert_eq!(c.tools[0].version.as_deref(), Some("1.5"));
    }

    #[test]
    fn load_reads_files() {
        let dir = std::env::temp_dir().join(format!("tw-catalog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.yaml");
        std::fs::write(&path, export(&[spec()], "demo").unwrap()).unwrap();
        let specs = load(&path).unwrap();
        assert_eq!(specs[0].name, "convert_currency");
        assert_eq!(specs[0].meta.side_effects, SideEffects::Read);
        let e = load(&dir.join("missing.yaml")).unwrap_err();
        assert!(e.message.contains("cannot read"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
