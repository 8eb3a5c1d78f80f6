//! `query_users`: enum-checked filters over a small SQLite table.

use rusqlite::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::{Mutex, OnceLock};
use toolwright::{State, ToolError, tool};

/// A user's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Role {
    Admin,
    Developer,
    Manager,
}

/// A department.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Department {
    Engineering,
    Sales,
    Marketing,
    Finance,
    Support,
}

const SEED: &[(&str, &str, &str, &str)] = &[
    ("Ada Lovelace", "ada@example.com", "admin", "engineering"),
    (
        "Grace Hopper",
        "grace@example.com",
        "developer",
        "engineering",
    ),
    (
        "Alan Turing",
        "alan@example.com",
        "developer",
        "engineering",
    ),
    (
        "Katherine Johnson",
        "katherine@example.com",
        "developer",
        "engineering",
    ),
    (
        "Margaret Hamilton",
        "margaret@example.com",
        "manager",
        "engineering",
    ),
    ("Linus Pauling", "linus@example.com", "developer", "support"),
    (
        "Barbara Liskov",
        "barbara@example.com",
        "admin",
        "engineering",
    ),
    (
        "Donald Knuth",
        "donald@example.com",
        "developer",
        "engineering",
    ),
    ("Frances Allen", "frances@example.com", "manager", "finance"),
    (
        "Edsger Dijkstra",
        "edsger@example.com",
        "developer",
        "support",
    ),
    ("Hedy Lamarr", "hedy@example.com", "manager", "marketing"),
    (
        "Claude Shannon",
        "claude@example.com",
        "developer",
        "engineering",
    ),
    ("Radia Perlman", "radia@example.com", "admin", "support"),
    ("John Backus", "john@example.com", "manager", "sales"),
    ("Annie Easley", "annie@example.com", "developer", "finance"),
    ("Tim Berners-Lee", "tim@example.com", "manager", "marketing"),
    (
        "Shafi Goldwasser",
        "shafi@example.com",
        "developer",
        "finance",
    ),
    ("Ken Thompson", "ken@example.com", "admin", "engineering"),
    (
        "Dennis Ritchie",
        "dennis@example.com",
        "developer",
        "engineering",
    ),
    (
        "Mary Kenneth Keller",
        "mary@example.com",
        "manager",
        "support",
    ),
    ("Jean Bartik", "jean@example.com", "developer", "sales"),
    (
        "Leslie Lamport",
        "leslie@example.com",
        "developer",
        "engineering",
    ),
    ("Sophie Wilson", "sophie@example.com", "manager", "sales"),
    (
        "Whitfield Diffie",
        "whitfield@example.com",
        "developer",
        "finance",
    ),
];

/// The state of `query_users`: an in-memory SQLite directory, seeded on first use. Each
/// registry has its own.
#[derive(Default)]
pub struct UsersState {
    db: OnceLock<Option<Mutex<Connection>>>,
}

impl std::fmt::Debug for UsersState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsersState")
            .field("open", &self.db.get().is_some())
            .finish()
    }
}

fn seeded() -> Option<Mutex<Connection>> {
    let conn = Connection::open_in_memory().ok()?;
    conn.execute_batch(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,
                             role TEXT NOT NULL, department TEXT NOT NULL);",
    )
    .ok()?;
    for (name, email, role, dept) in SEED {
        conn.execute(
            "INSERT INTO users (name, email, role, department) VALUES (?1, ?2, ?3, ?4)",
            (name, email, role, dept),
        )
        .ok()?;
    }
    Some(Mutex::new(conn))
}

impl UsersState {
    fn db(&self) -> Result<&Mutex<Connection>, ToolError> {
        self.db.get_or_init(seeded).as_ref().ok_or_else(|| {
            ToolError::dependency_unavailable(
                "The users database could not be opened.",
                "Tell the user the directory is unavailable.",
            )
        })
    }
}

fn enum_str<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// `text` as a LIKE pattern that matches itself only: `%`, `_` and the escape character `\`
/// are escaped (the query says `ESCAPE '\'`), so a name filter of `%` is not a wildcard.
fn like_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// List users of the company directory, filtered by name, role and department.
///
/// Use this tool when the user asks who works somewhere, who has a role, or for someone's email.
/// Filters combine with AND; leave a filter out to match everyone.
///
/// # Arguments
/// * `name` - Part of the user's name, case-insensitive, e.g. "grace"
/// * `role` - Only users with this role
/// * `department` - Only users in this department
/// * `limit` - Maximum number of users to return
#[tool(
    display_label = "Looking up users",
    timeout_ms = 2000,
    side_effects = "read",
    category = "directory",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 20,
    examples = [r#"{"role": "admin"}"#, r#"{"department": "engineering", "limit": 5}"#]
)]
pub fn query_users(
    #[arg(max_length = 100)] name: Option<String>,
    role: Option<Role>,
    department: Option<Department>,
    #[arg(default = 10, min = 1, max = 100)] limit: u32,
    users: State<UsersState>,
) -> Result<serde_json::Value, ToolError> {
    let conn = users.db()?.lock().unwrap_or_else(|e| e.into_inner());
    let pattern = name
        .as_deref()
        .map(|n| format!("%{}%", like_literal(&n.trim().to_lowercase())));
    let role = role.map(|r| enum_str(&r));
    let dept = department.map(|d| enum_str(&d));
    let mut stmt = conn
        .prepare(
            "SELECT id, name, email, role, department FROM users
             WHERE (?1 IS NULL OR lower(name) LIKE ?1 ESCAPE '\\')
               AND (?2 IS NULL OR role = ?2)
               AND (?3 IS NULL OR department = ?3)
             ORDER BY id LIMIT ?4",
        )
        .map_err(|e| ToolError::internal(e.to_string()))?;
    let rows = stmt
        .query_map((pattern, role, dept, limit), |r| {
            Ok(serde_json::json!({
                "id": r.get::<_, i64>(0)?, "name": r.get::<_, String>(1)?, "email": r.get::<_, String>(2)?,
                "role": r.get::<_, String>(3)?, "department": r.get::<_, String>(4)?,
            }))
        })
        .map_err(|e| ToolError::internal(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ToolError::internal(e.to_string()))?;
    Ok(serde_json::json!({"count": rows.len(), "users": rows}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_literal_escapes_wildcards_and_the_escape() {
        assert_eq!(like_literal("grace"), "grace");
        assert_eq!(like_literal("%"), "\\%");
        assert_eq!(like_literal("a_b"), "a\\_b");
        assert_eq!(like_literal("\\"), "\\\\");
        assert_eq!(like_literal("50%_\\x"), "50\\%\\_\\\\x");
    }
}
