//! The family catalogue: one family a file, listed once in `catalogue!`'s invocation
//! below, which declares the module and makes the [`Family`] enum (serde, strum and clap
//! names are the kebab-case variant), `Family::ALL` in catalogue order and
//! `Family::builder`, an exhaustive match: a family cannot lack a builder.

use super::proposal::FamilyBuilder;

mod compound;
mod integrate;
mod pairs;

/// `Variant => module::Builder`, one line a family, in catalogue order.
macro_rules! catalogue {
    ($($variant:ident => $module:ident :: $builder:ident,)*) => {
        $(mod $module;)*

        /// The families, in catalogue order.
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
            clap::ValueEnum,
            schemars::JsonSchema,
        )]
        #[serde(rename_all = "kebab-case")]
        #[strum(serialize_all = "kebab-case")]
        pub enum Family {
            $($variant,)*
        }

        impl Family {
            pub(crate) const ALL: [Family; [$(stringify!($variant)),*].len()] = [$(Family::$variant),*];

            /// The family's catalogue entry.
            pub(crate) fn builder(self) -> &'static dyn FamilyBuilder {
                match self {
                    $(Family::$variant => &$module::$builder,)*
                }
            }
        }
    };
}

catalogue! {
    StripRestore => strip_restore::StripRestore,
    DivergentEdit => divergent_edit::DivergentEdit,
    ComposeEdits => compose_edits::ComposeEdits,
    SignatureCallsite => signature_callsite::SignatureCallsite,
    FeatureFeature => feature_feature::FeatureFeature,
    FeatureRefactor => feature_refactor::FeatureRefactor,
    FeatureContract => feature_contract::FeatureContract,
    MoveEdit => move_edit::MoveEdit,
    MergeReplay => merge_replay::MergeReplay,
    CommitReplay => commit_replay::CommitReplay,
}
