use toolwright::{ToolError, tool};

/// Greet someone. Use this when asked to greet.
///
/// # Arguments
/// * `name` - Who to greet
#[tool]
fn greet(name: &str) -> Result<String, ToolError> {
    Ok(format!("hi {name}"))
}

fn main() {}
