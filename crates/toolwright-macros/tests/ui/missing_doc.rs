use toolwright::{ToolError, tool};

#[tool]
fn no_docs(x: u32) -> Result<u32, ToolError> {
    Ok(x)
}

fn main() {}
