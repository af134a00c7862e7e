//! Outcomes as table cells: [`FlatOutcome`] (every key always present) and
//! [`FlatBaselines`], the ladder's outcomes as columns made from the resolver catalogue.
//!
//! `FlatBaselines` is laid out like the task's baselines ([`ladder`]: one column per
//! record key of the resolver catalogue, in ladder order) with a flat outcome per
//! resolver, or null when it did not run (mergiraf without a binary). Its JSON Schema,
//! and so the dataset card's features, comes from the catalogue as well: a new resolver
//! is a new column with no edit here. The agent rung's column (`agent`) comes last, null
//! for a task the agent did not play.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::pytest::testrun::Outcome;
use crate::resolve::Resolver;
use crate::validate::ladder::{self, LadderCell};
use crate::validate::{AgentOutcome, Baselines, MaybeOutcome};

/// An outcome with every key always present.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct FlatOutcome {
    pub(crate) passed: bool,
    pub(crate) failed_tests: Vec<String>,
    pub(crate) timed_out: bool,
}

impl From<&Outcome> for FlatOutcome {
    fn from(outcome: &Outcome) -> Self {
        FlatOutcome { passed: outcome.passed, failed_tests: outcome.failed_tests.clone(), timed_out: outcome.timed_out }
    }
}

impl From<&FlatOutcome> for Outcome {
    /// The recorded outcome (durations are not part of any record).
    fn from(flat: &FlatOutcome) -> Self {
        Outcome {
            passed: flat.passed,
            failed_tests: flat.failed_tests.clone(),
            duration_ms: 0,
            timed_out: flat.timed_out,
            out_of_memory: false,
            last_line: String::new(),
        }
    }
}

/// The baselines as columns (see the module header): cells parallel to
/// [`crate::resolve::ALL`], then the agent rung's (null when it did not play).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlatBaselines(Vec<Option<FlatOutcome>>, Option<AgentOutcome>);

impl From<&Baselines> for FlatBaselines {
    fn from(baselines: &Baselines) -> Self {
        let cells = baselines.iter().map(|(_, outcome)| outcome.outcome().map(FlatOutcome::from)).collect();
        FlatBaselines(cells, baselines.agent)
    }
}

impl From<&FlatBaselines> for Baselines {
    fn from(flat: &FlatBaselines) -> Self {
        let mut cells = flat.0.iter();
        let mut baselines = Baselines::from_fn(|_| match cells.next() {
            Some(Some(outcome)) => MaybeOutcome::Ran(outcome.into()),
            _ => MaybeOutcome::unavailable(),
        });
        baselines.agent = flat.1;
        baselines
    }
}

impl Serialize for FlatBaselines {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ladder::serialize(&self.0, self.1.as_ref(), ladder::AgentColumn::Always, serializer)
    }
}

impl<'de> Deserialize<'de> for FlatBaselines {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (cells, agent) = ladder::deserialize(deserializer)?;
        Ok(FlatBaselines(cells, agent))
    }
}

impl JsonSchema for FlatBaselines {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FlatBaselines".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        ladder::schema::<Option<FlatOutcome>>(
            generator,
            "The baseline resolvers' outcomes, one column per record key in ladder order, then the agent rung's.",
            ladder::AgentColumn::Always,
        )
    }
}

/// A resolver's cell: its flat outcome, null when it did not run.
impl LadderCell for Option<FlatOutcome> {
    fn passed(&self) -> bool {
        self.as_ref().is_some_and(|o| o.passed)
    }

    fn missing() -> Self {
        None
    }

    fn describe(resolver: &dyn Resolver) -> String {
        format!("{} Null when it did not run.", resolver.description())
    }
}
