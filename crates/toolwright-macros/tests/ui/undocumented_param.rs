use toolwright::{ToolError, tool};

/// Add two numbers. Use this when asked for a sum.
///
/// # Arguments
/// * `a` - The first number
#[tool]
fn add(a: u32, b: u32) -> Result<u32, ToolError> {
    Ok(a + b)
}

fn main() {}
