//! Value parsers shared by the commands' flags.

/// The value parser of a flag taking catalogue values (`--families`): the possible values
/// (listed by `--help`) come from the catalogue's enum, and a bad value gets one line
/// naming it and the known ones.
#[derive(Clone)]
pub(crate) struct CatalogueValue<E> {
    what: &'static str,
    values: std::marker::PhantomData<E>,
}

impl<E> CatalogueValue<E> {
    pub(crate) fn new(what: &'static str) -> Self {
        CatalogueValue { what, values: std::marker::PhantomData }
    }
}

impl<E: clap::ValueEnum + Clone + Send + Sync + 'static> clap::builder::TypedValueParser for CatalogueValue<E> {
    type Value = E;

    fn parse_ref(&self, _: &clap::Command, _: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<E, clap::Error> {
        let text = value.to_string_lossy();
        E::from_str(text.trim(), false).map_err(|_| {
            let known: Vec<String> =
                E::value_variants().iter().filter_map(|v| v.to_possible_value()).map(|p| p.get_name().into()).collect();
            let message = format!("unknown {} `{text}`; known: {}\n", self.what, known.join(", "));
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, message)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(E::value_variants().iter().filter_map(|v| v.to_possible_value())))
    }
}

/// The value parser of a flag taking a name from a list known only at run time (`eval
/// --agent`, whose agents come from the resolver catalogue): the possible values, each
/// with its help, are listed by `--help`, and a bad value gets one line naming it and
/// the known ones.
#[derive(Clone)]
pub(crate) struct NamedValue {
    what: &'static str,
    names: fn() -> Vec<(&'static str, &'static str)>,
}

impl NamedValue {
    /// A parser for `what` (`agent`) whose `(name, help)` pairs `names` gives.
    pub(crate) fn new(what: &'static str, names: fn() -> Vec<(&'static str, &'static str)>) -> Self {
        NamedValue { what, names }
    }
}

impl clap::builder::TypedValueParser for NamedValue {
    type Value = String;

    fn parse_ref(
        &self,
        _: &clap::Command,
        _: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let text = value.to_string_lossy().trim().to_string();
        let names = (self.names)();
        if names.iter().any(|(name, _)| *name == text) {
            return Ok(text);
        }
        let known: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
        let message = format!("unknown {} `{text}`: expected one of {}\n", self.what, known.join(", "));
        Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, message))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let values = (self.names)().into_iter().map(|(name, help)| clap::builder::PossibleValue::new(name).help(help));
        Some(Box::new(values))
    }
}
