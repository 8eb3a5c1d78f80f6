//! `convert_currency` over a dated rates table shipped in the repo.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use toolwright::{State, ToolError, tool};

/// ISO 4217 currency code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[allow(missing_docs, clippy::upper_case_acronyms)]
pub enum Currency {
    USD,
    EUR,
    GBP,
    JPY,
    CHF,
    CAD,
    AUD,
    CNY,
    INR,
    SEK,
    NOK,
    BRL,
    MXN,
    KRW,
    SGD,
}

impl Currency {
    fn code(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    }
}

/// The result of a conversion.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Conversion {
    /// The amount converted.
    pub amount: f64,
    /// Source currency.
    pub from_currency: Currency,
    /// Target currency.
    pub to_currency: Currency,
    /// Units of the target currency per unit of the source.
    pub rate: f64,
    /// The converted amount, rounded to 2 decimals.
    pub converted: f64,
    /// Date of the rates table.
    pub rates_date: String,
    /// Where the rates come from.
    pub source: String,
}

#[derive(Deserialize)]
struct RatesTable {
    date: String,
    source: String,
    rates: BTreeMap<String, f64>,
}

/// The state of `convert_currency`: the rates table shipped in the repo, parsed on first use.
#[derive(Default)]
pub struct FinanceState {
    table: OnceLock<Option<RatesTable>>,
}

impl std::fmt::Debug for FinanceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FinanceState")
            .field("loaded", &self.table.get().is_some())
            .finish()
    }
}

impl FinanceState {
    fn table(&self) -> Result<&RatesTable, ToolError> {
        self.table
            .get_or_init(|| serde_json::from_str(include_str!("../data/rates.json")).ok())
            .as_ref()
            .ok_or_else(|| ToolError::internal("the shipped rates table does not parse"))
    }

    /// The date of the rates table.
    pub fn rates_date(&self) -> String {
        self.table().map(|t| t.date.clone()).unwrap_or_default()
    }
}

/// The date of the shipped rates table.
pub fn rates_date() -> String {
    FinanceState::default().rates_date()
}

/// Convert an amount between currencies using the dated rates table.
///
/// Use this tool when the user asks to convert money or compare prices across currencies.
/// Do NOT use it for stock prices or crypto. The answer carries the date of the rates; say it.
///
/// # Arguments
/// * `amount` - Amount to convert, e.g. 100 or 12.5
/// * `from_currency` - ISO 4217 code of the source currency
/// * `to_currency` - ISO 4217 code of the target currency
#[tool(
    display_label = "Converting currency",
    timeout_ms = 2000,
    side_effects = "none",
    category = "finance",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 50,
    examples = [r#"{"amount": 100, "from_currency": "USD", "to_currency": "EUR"}"#]
)]
pub async fn convert_currency(
    #[arg(min = 0.0, max = 1.0e12)] amount: f64,
    from_currency: Currency,
    to_currency: Currency,
    rates: State<FinanceState>,
) -> Result<Conversion, ToolError> {
    let t = rates.table()?;
    let rate_of = |c: Currency| {
        t.rates.get(&c.code()).copied().ok_or_else(|| {
            ToolError::not_found(
                format!("No rate for {} in the table of {}.", c.code(), t.date),
                format!(
                    "Use one of: {}.",
                    t.rates.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )
        })
    };
    let rate = rate_of(to_currency)? / rate_of(from_currency)?;
    Ok(Conversion {
        amount,
        from_currency,
        to_currency,
        rate: (rate * 1e6).round() / 1e6,
        converted: (amount * rate * 100.0).round() / 100.0,
        rates_date: t.date.clone(),
        source: t.source.clone(),
    })
}
