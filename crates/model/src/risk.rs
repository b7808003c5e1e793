//! The risk ladder of seed 001 (`readonly < mutating < destructive`): the one `Risk`
//! the catalog, the launch policy and the TUI share.

use serde::{Deserialize, Serialize};

/// How much a case may change, lowest first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    #[default]
    /// Reads only: runs without a grant.
    Readonly,
    /// Changes state: runs only when authorized.
    Mutating,
    /// Destroys data: runs only when authorized.
    Destructive,
}

impl Risk {
    /// Every value, in the seed's order.
    pub const ALL: [Risk; 3] = [Risk::Readonly, Risk::Mutating, Risk::Destructive];

    /// The seed's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Readonly => "readonly",
            Risk::Mutating => "mutating",
            Risk::Destructive => "destructive",
        }
    }

    /// The value spelled `s`, exactly as the seed writes it.
    pub fn parse(s: &str) -> Option<Risk> {
        Risk::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The allowed spellings, for messages: `a / b / c`.
    pub fn choices() -> String {
        Risk::ALL.map(Risk::as_str).join(" / ")
    }

    /// The next one up the ladder, from `destructive` back to `readonly`.
    #[must_use]
    pub fn cycled(self) -> Risk {
        match self {
            Risk::Readonly => Risk::Mutating,
            Risk::Mutating => Risk::Destructive,
            Risk::Destructive => Risk::Readonly,
        }
    }
}

impl std::fmt::Display for Risk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "clap")]
/// clap's side of the one `Risk`: `[possible values: readonly, mutating, destructive]`.
impl clap::ValueEnum for Risk {
    fn value_variants<'a>() -> &'a [Self] {
        &Risk::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::Risk;

    #[test]
    fn spelling_round_trips_and_the_ladder_is_ordered() {
        for r in Risk::ALL {
            assert_eq!(Risk::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_string(&r).ok(), Some(format!("\"{r}\"")));
        }
        assert!(Risk::Readonly < Risk::Mutating && Risk::Mutating < Risk::Destructive);
        assert_eq!(Risk::parse("Readonly"), None);
        assert_eq!(Risk::choices(), "readonly / mutating / destructive");
        assert_eq!(Risk::Destructive.cycled(), Risk::Readonly);
    }
}
