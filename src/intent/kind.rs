//! The intent kinds, by name: the [`Kind`] enum (serde and strum names are the
//! kebab-case variant). Its catalogue entries (`Kind::transform`, an exhaustive match
//! made by `catalogue!` in `intent/mod.rs`) live with the kinds' files, so a variant
//! without an entry does not compile.

/// The intent kinds, in catalogue order.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Kind {
    AddFunction,
    Rename,
    RenameLocal,
    RenameParam,
    RenameMethod,
    Move,
    Branch,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::AddFunction,
        Kind::Rename,
        Kind::RenameLocal,
        Kind::RenameParam,
        Kind::RenameMethod,
        Kind::Move,
        Kind::Branch,
    ];

    /// The kebab-case name (`add-function`).
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Whether the kind renames a name bound in one function (a local or a parameter):
    /// its site's symbol is `function.name`, and a feature uses it when it reads that name.
    pub fn renames_in_function(self) -> bool {
        matches!(self, Kind::RenameLocal | Kind::RenameParam)
    }

    /// Looks a kind up by name.
    pub fn parse(name: &str) -> Option<Kind> {
        name.parse().ok()
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}
