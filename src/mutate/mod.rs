//! The mutation engine: operators that find AST nodes (rustpython-parser) and propose
//! edits as text splices at the nodes' byte ranges, so untouched code keeps its
//! formatting byte for byte.
//!
//! This stage owns the operator catalogue ([`catalogue`]) and applying splices. It knows
//! nothing about git, families or tests: a family picks mutations, this module makes them.

pub(crate) mod operator;
pub(crate) mod ops;

pub use crate::python::PyModule;
pub use operator::{Mutation, Operator, OperatorKind, OperatorRef};

/// Every operator, in a fixed order.
pub fn catalogue() -> &'static [&'static dyn Operator] {
    ops::ALL
}

/// Looks an operator up by name.
pub fn operator(name: &str) -> Option<&'static dyn Operator> {
    catalogue().iter().copied().find(|op| op.name() == name)
}

/// A string naming an operator of the catalogue or one a family applies itself.
impl schemars::JsonSchema for OperatorRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Operator".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = catalogue().iter().chain(ops::MADE_BY_FAMILIES).map(|op| op.name()).collect();
        schemars::json_schema!({
            "type": "string",
            "description": "A mutation operator, by name.",
            "enum": names,
        })
    }
}

impl<'de> serde::Deserialize<'de> for OperatorRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <String as serde::Deserialize>::deserialize(deserializer)?;
        OperatorRef::parse(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown operator `{name}`")))
    }
}

/// Applies non-overlapping mutations of one file to `text`. Returns `None` if any two
/// overlap or the result does not parse.
pub fn apply(text: &str, path: &str, mutations: &[&Mutation]) -> Option<String> {
    let mut sorted: Vec<&Mutation> = mutations.to_vec();
    sorted.sort_by_key(|m| m.start);
    for pair in sorted.windows(2) {
        if pair[0].end > pair[1].start {
            return None;
        }
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut cursor = 0;
    for m in sorted {
        if m.end > text.len() || !text.is_char_boundary(m.start) || !text.is_char_boundary(m.end) {
            return None;
        }
        out.push_str(&text[cursor..m.start]);
        out.push_str(&m.replacement);
        cursor = m.end;
    }
    out.push_str(&text[cursor..]);
    crate::python::parses(&out, path).then_some(out)
}

/// All mutations of every operator in `module`, sorted by position then operator order.
pub(crate) fn all_mutations(module: &PyModule) -> Vec<Mutation> {
    let mut all: Vec<Mutation> = catalogue().iter().flat_map(|op| op.mutations(module)).collect();
    all.sort_by_key(|a| (a.start, a.end));
    all
}

impl OperatorRef {
    /// Looks a name up in the catalogue and the operators families apply themselves.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        catalogue().iter().chain(ops::MADE_BY_FAMILIES).copied().find(|op| op.name() == name).map(OperatorRef::new)
    }
}
