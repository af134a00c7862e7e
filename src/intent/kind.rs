//! The intent kinds, by name: the one list of kinds ([`kinds!`]), and the [`Kind`] enum
//! made from it (serde and strum names are the kebab-case variant). The catalogue in
//! `intent/mod.rs` reads the same list to declare each kind's module and make
//! `Kind::transform`, an exhaustive match, so a kind is added by one line here and its
//! file. The list lives here, apart from the catalogue, so that kinds, which name
//! `Kind`, never import the file that declares their modules.

/// `Variant => module::Type`, one line an intent kind, in catalogue order (the order
/// sites are found and families pair them in). Hands the list to the macro `$then`.
macro_rules! kinds {
    ($then:ident) => {
        $then! {
            AddFunction => add_function::AddFunction,
            Rename => rename::Rename,
            Move => move_def::MoveDef,
            RenameLocal => rename_local::RenameLocal,
            RenameParam => rename_param::RenameParam,
            RenameMethod => rename_method::RenameMethod,
            Branch => branch::Branch,
            ScaleParam => scale_param::ScaleParam,
            ReturnDict => return_dict::ReturnDict,
            AddParam => add_param::AddParam,
            ReorderParams => reorder_params::ReorderParams,
            KeywordOnly => keyword_only::KeywordOnly,
            RaiseOnMiss => raise_on_miss::RaiseOnMiss,
            ScaleReturn => scale_return::ScaleReturn,
            AddModule => add_module::AddModule,
            DictEntry => dict_entry::DictEntry,
            ParamWithUses => param_with_uses::ParamWithUses,
            ExtractHelper => extract_helper::ExtractHelper,
        }
    };
}
pub(super) use kinds;

/// Makes [`Kind`] and `Kind::ALL` from the list.
macro_rules! kind_enum {
    ($($variant:ident => $module:ident :: $kind:ident,)*) => {
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
            $($variant,)*
        }

        impl Kind {
            /// Every kind, in catalogue order.
            pub const ALL: [Kind; [$(stringify!($variant)),*].len()] = [$(Kind::$variant),*];
        }
    };
}

kinds!(kind_enum);

impl Kind {
    /// The kebab-case name (`add-function`).
    pub fn name(self) -> &'static str {
        self.into()
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
