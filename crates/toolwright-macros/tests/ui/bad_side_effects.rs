use toolwright::{ToolError, tool};

/// Do a thing. Use this when asked.
#[tool(side_effects = "sometimes")]
fn thing() -> Result<u32, ToolError> {
    Ok(1)
}

fn main() {}
