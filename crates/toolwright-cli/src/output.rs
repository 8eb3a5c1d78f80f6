//! The one output convention of the commands that print data: `--format text|json` (`text`
//! for people, the default except where the command's contract is JSON; `json` for machines).
//! `table` is accepted for `text`, as `tools list` and `stats` spelled it.

use clap::ValueEnum;

/// Output formats.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Lines or a table for people.
    #[default]
    #[value(alias = "table")]
    Text,
    /// JSON for machines.
    Json,
}
