//! `get_weather` over offline fixture observations for a few dozen cities.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;
use toolwright::{State, ToolError, closest, tool};

/// Temperature units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    /// Degrees Celsius.
    #[default]
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

#[derive(Debug, Clone, Deserialize)]
struct Observation {
    city: String,
    country: String,
    temperature_c: f64,
    condition: String,
    humidity_pct: u32,
    wind_kph: u32,
    precipitation_mm: f64,
}

#[derive(Deserialize)]
struct Fixture {
    observed_at: String,
    source: String,
    cities: Vec<Observation>,
}

/// The state of `get_weather`: the offline fixture shipped in the repo, parsed on first use.
#[derive(Default)]
pub struct WeatherState {
    fixture: OnceLock<Option<Fixture>>,
}

impl std::fmt::Debug for WeatherState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WeatherState")
            .field("loaded", &self.fixture.get().is_some())
            .finish()
    }
}

impl WeatherState {
    fn fixture(&self) -> Result<&Fixture, ToolError> {
        self.fixture
            .get_or_init(|| serde_json::from_str(include_str!("../data/weather.json")).ok())
            .as_ref()
            .ok_or_else(|| ToolError::internal("the shipped weather fixture does not parse"))
    }

    /// Names of the cities the fixture knows.
    pub fn known_cities(&self) -> Vec<String> {
        self.fixture()
            .map(|f| f.cities.iter().map(|c| c.city.clone()).collect())
            .unwrap_or_default()
    }
}

/// Names of the cities the shipped fixture knows.
pub fn known_cities() -> Vec<String> {
    WeatherState::default().known_cities()
}

/// Current weather for a city: temperature, conditions, rain, wind and humidity.
///
/// Use this tool when the user asks about the weather, temperature, rain, snow or wind in a
/// city (e.g. "is it raining in Paris?"). Observations come from an offline fixture and carry
/// their time.
///
/// # Arguments
/// * `city` - City name in English, e.g. "Paris" or "New York"
/// * `units` - Temperature units for the answer
#[tool(
    display_label = "Checking the weather",
    timeout_ms = 2000,
    side_effects = "read",
    category = "weather",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 50,
    examples = [r#"{"city": "Paris"}"#, r#"{"city": "Tokyo", "units": "fahrenheit"}"#]
)]
pub async fn get_weather(
    #[arg(min_length = 1, max_length = 100)] city: String,
    #[arg(default = Units::Celsius)] units: Units,
    weather: State<WeatherState>,
) -> Result<serde_json::Value, ToolError> {
    let f = weather.fixture()?;
    let wanted = city.trim();
    let Some(obs) = f
        .cities
        .iter()
        .find(|c| c.city.eq_ignore_ascii_case(wanted))
    else {
        let names: Vec<&str> = f.cities.iter().map(|c| c.city.as_str()).collect();
        let near = closest(wanted, names.iter().copied(), 3);
        let suggestion = if near.is_empty() {
            format!(
                "Tell the user there is no data for that city. Known cities include: {}.",
                names
                    .iter()
                    .take(12)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            format!(
                "Did you mean {}? Call again with that city.",
                near.join(" or ")
            )
        };
        let shown: String = wanted.chars().take(60).collect();
        return Err(ToolError::not_found(
            format!("No weather data for `{shown}`."),
            suggestion,
        ));
    };
    let temperature = match units {
        Units::Celsius => obs.temperature_c,
        Units::Fahrenheit => (obs.temperature_c * 9.0 / 5.0 + 32.0).round(),
    };
    Ok(serde_json::json!({
        "city": obs.city,
        "country": obs.country,
        "temperature": temperature,
        "units": units,
        "condition": obs.condition,
        "raining": obs.condition.contains("rain") || obs.condition.contains("shower") || obs.condition.contains("thunder"),
        "precipitation_mm": obs.precipitation_mm,
        "humidity_pct": obs.humidity_pct,
        "wind_kph": obs.wind_kph,
        "observed_at": f.observed_at,
        "source": f.source,
    }))
}
