//! Units a number can be in, as the `Contract::Units` kinds read and convert them: which
//! names and which words of prose say a unit ([`Unit`]), the one conversion each unit
//! changes to (seconds ↔ milliseconds, percent ↔ fraction), and an expression's text
//! converted by a power of ten the way a developer writes it ([`converted`]): a numeric
//! literal folded (`5` → `5000`, `50` → `0.5`), a scaling that the conversion undoes
//! dropped (`delay_ms / 1000` → `delay_ms`), anything else multiplied or divided.

use rustpython_ast as ast;

use super::naming;
use crate::python::text::precedence;
use crate::python::PyModule;

/// A unit a number is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Seconds,
    Milliseconds,
    Percent,
    Fraction,
}

/// Words of a parameter's name that say its unit, with the words a developer renames
/// them to when the unit changes (the first that is free is taken).
const NAME_WORDS: &[(&str, Unit, &[&str])] = &[
    ("seconds", Unit::Seconds, &["ms", "millis"]),
    ("secs", Unit::Seconds, &["ms", "millis"]),
    ("sec", Unit::Seconds, &["ms", "millis"]),
    ("milliseconds", Unit::Milliseconds, &["seconds", "secs"]),
    ("millis", Unit::Milliseconds, &["secs", "seconds"]),
    ("msecs", Unit::Milliseconds, &["secs", "seconds"]),
    ("msec", Unit::Milliseconds, &["sec", "seconds"]),
    ("ms", Unit::Milliseconds, &["seconds", "secs"]),
    ("percent", Unit::Percent, &["fraction", "ratio"]),
    ("percentage", Unit::Percent, &["fraction", "ratio"]),
    ("pct", Unit::Percent, &["fraction", "frac"]),
    ("fraction", Unit::Fraction, &["percent", "pct"]),
    ("frac", Unit::Fraction, &["pct", "percent"]),
    ("ratio", Unit::Fraction, &["percent", "pct"]),
];

/// A whole name that is a unit word renames to the unit's full name.
const WHOLE_NAMES: &[(&str, &str)] = &[
    ("seconds", "milliseconds"),
    ("secs", "millis"),
    ("milliseconds", "seconds"),
    ("millis", "seconds"),
    ("ms", "seconds"),
    ("percent", "fraction"),
    ("percentage", "fraction"),
    ("pct", "fraction"),
    ("fraction", "percent"),
    ("ratio", "percent"),
];

/// Words of a name that make it a duration without saying the unit (`timeout`,
/// `max_wait`): its unit is read from its documentation.
const DURATION_WORDS: &[&str] = &["timeout", "delay", "wait", "interval", "period", "duration", "ttl", "backoff"];

/// Words of a name that make it a ratio without saying the scale (`rate`).
const RATIO_WORDS: &[&str] = &["rate", "probability", "share"];

/// Words of prose that state a unit, by unit, with what they become in the converted
/// unit (a line of documentation about the parameter is rewritten with them).
const PROSE_WORDS: &[(Unit, &[(&str, &str)])] = &[
    (Unit::Seconds, &[("seconds", "milliseconds"), ("second", "millisecond"), ("secs", "ms"), ("sec", "ms")]),
    (
        Unit::Milliseconds,
        &[
            ("milliseconds", "seconds"),
            ("millisecond", "second"),
            ("msecs", "seconds"),
            ("msec", "second"),
            ("ms", "seconds"),
        ],
    ),
    (
        Unit::Percent,
        &[
            ("in percent", "as a fraction"),
            ("a percentage", "a fraction"),
            ("percentage", "fraction"),
            ("percent", "fraction"),
        ],
    ),
    (
        Unit::Fraction,
        &[
            ("a fraction", "a percentage"),
            ("a ratio", "a percentage"),
            ("fraction", "percent"),
            ("ratio", "percentage"),
        ],
    ),
];

impl Unit {
    /// The unit a value in this one converts to, and the power of ten a value is
    /// multiplied by on the way (3: × 1000, -2: ÷ 100).
    pub(super) fn conversion(self) -> (Unit, i32) {
        match self {
            Unit::Seconds => (Unit::Milliseconds, 3),
            Unit::Milliseconds => (Unit::Seconds, -3),
            Unit::Percent => (Unit::Fraction, -2),
            Unit::Fraction => (Unit::Percent, 2),
        }
    }

    /// The kebab-case name (`milliseconds`), as a site's target carries it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Unit::Seconds => "seconds",
            Unit::Milliseconds => "milliseconds",
            Unit::Percent => "percent",
            Unit::Fraction => "fraction",
        }
    }

    /// Looks a unit up by [`Unit::name`].
    pub(super) fn parse(name: &str) -> Option<Unit> {
        [Unit::Seconds, Unit::Milliseconds, Unit::Percent, Unit::Fraction].into_iter().find(|u| u.name() == name)
    }

    /// How a commit subject says a value is in the unit: `in seconds`, `as a fraction`.
    pub(super) fn phrase(self) -> &'static str {
        match self {
            Unit::Seconds => "in seconds",
            Unit::Milliseconds => "in milliseconds",
            Unit::Percent => "as a percent",
            Unit::Fraction => "as a fraction",
        }
    }

    /// The unit that converts to this one.
    pub(super) fn source(self) -> Unit {
        self.conversion().0
    }

    /// Whether the unit is a duration (not a ratio).
    fn is_duration(self) -> bool {
        matches!(self, Unit::Seconds | Unit::Milliseconds)
    }

    /// The unit words of prose and what they become.
    fn prose(self) -> &'static [(&'static str, &'static str)] {
        PROSE_WORDS.iter().find(|(u, _)| *u == self).map_or(&[], |(_, words)| words)
    }
}

/// What a parameter's name says of its unit.
pub(super) enum Named {
    /// A word of the name is the unit (`timeout_secs`); the candidate new names follow.
    Unit(Unit, Vec<String>),
    /// The name is a duration or a ratio that does not say its unit (`delay`, `rate`):
    /// whether it is a duration.
    Neutral { duration: bool },
}

/// What `name` says of its unit, if it is a quantity this kind converts.
pub(super) fn named(name: &str) -> Option<Named> {
    if let Some((_, new)) = WHOLE_NAMES.iter().find(|(old, _)| *old == name) {
        let unit = NAME_WORDS.iter().find(|(w, ..)| w == &name)?.1;
        return Some(Named::Unit(unit, vec![new.to_string()]));
    }
    let words: Vec<&str> = name.split('_').collect();
    for (i, word) in words.iter().enumerate().rev() {
        if let Some((_, unit, renames)) = NAME_WORDS.iter().find(|(w, ..)| w == word) {
            let with = |new: &str| {
                let mut parts = words.clone();
                parts[i] = new;
                parts.join("_")
            };
            return Some(Named::Unit(*unit, renames.iter().map(|new| with(new)).collect()));
        }
    }
    let has = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if has(DURATION_WORDS) {
        return Some(Named::Neutral { duration: true });
    }
    has(RATIO_WORDS).then_some(Named::Neutral { duration: false })
}

/// The unit that lines of prose about a neutral quantity state (`wait (int):
/// Milliseconds to wait`), the first stated winning; only units of the right sort count.
pub(super) fn stated<'t>(lines: impl IntoIterator<Item = &'t str>, duration: bool) -> Option<Unit> {
    let units = [Unit::Milliseconds, Unit::Seconds, Unit::Percent, Unit::Fraction];
    for line in lines {
        let lower = line.to_lowercase();
        let says = |unit: &Unit| unit.prose().iter().any(|(word, _)| naming::occurs(&lower, word));
        if let Some(unit) = units.iter().filter(|u| u.is_duration() == duration).find(|u| says(u)) {
            return Some(*unit);
        }
    }
    None
}

/// The edits that restate `line` (at `start` of its text) in the converted unit: each
/// of `unit`'s prose words (longest phrases first) becomes its counterpart, capitalised
/// as it was.
pub(super) fn restated(line: &str, start: usize, unit: Unit) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let lower = line.to_lowercase();
    if lower.len() != line.len() {
        return out;
    }
    for (word, new) in unit.prose() {
        for at in naming::occurrences(&lower, word) {
            if out.iter().any(|(r, _)| r.start < start + at + word.len() && start + at < r.end) {
                continue;
            }
            let original = &line[at..at + word.len()];
            let new = match original.chars().next() {
                Some(c) if c.is_uppercase() => capitalised(new),
                _ => new.to_string(),
            };
            out.push((start + at..start + at + word.len(), new));
        }
    }
    out
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Whether `expr` is a number literal (an int or a float, optionally negated).
pub(super) fn is_number(expr: &ast::Expr) -> bool {
    match expr {
        ast::Expr::Constant(c) => matches!(c.value, ast::Constant::Int(_) | ast::Constant::Float(_)),
        ast::Expr::UnaryOp(u) => matches!(u.op, ast::UnaryOp::USub | ast::UnaryOp::UAdd) && is_number(&u.operand),
        _ => false,
    }
}

/// Whether `expr` is a constant that is not a number (a string, `None`, a bool, ...).
pub(super) fn is_other_constant(expr: &ast::Expr) -> bool {
    matches!(expr, ast::Expr::Constant(_)) && !is_number(expr)
}

/// The text of `expr` (of `module`) scaled by ten to the `power`, as a developer writes
/// it: a number literal folded, a scaling by the same factor undone, anything else
/// multiplied or divided (parenthesised when it binds looser); `None` for a constant that
/// is not a number.
pub(super) fn converted(module: &PyModule, expr: &ast::Expr, power: i32) -> Option<String> {
    if is_other_constant(expr) {
        return None;
    }
    if let Some(folded) = folded(module, expr, power) {
        return Some(folded);
    }
    if let Some(inner) = undone(expr, power) {
        let text = module.source(inner);
        return Some(if precedence(inner) < 12 { format!("({text})") } else { text.to_string() });
    }
    let text = module.source(expr);
    let operand = if precedence(expr) < 12 { format!("({text})") } else { text.to_string() };
    let factor = 10u32.pow(power.unsigned_abs());
    Some(if power > 0 { format!("{operand} * {factor}") } else { format!("{operand} / {factor}") })
}

/// The literal `expr` folded, when it is one (`-5` → `-5000`).
fn folded(module: &PyModule, expr: &ast::Expr, power: i32) -> Option<String> {
    match expr {
        ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Int(_) | ast::Constant::Float(_)) => {
            shifted(module.source(expr), power)
        }
        ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::USub => Some(format!("-{}", folded(module, &u.operand, power)?)),
        _ => None,
    }
}

/// The operand of `expr` when `expr` scales it by the factor a conversion by ten to the
/// `power` undoes (`x / 1000` under × 1000, `x * 100` or `100 * x` under ÷ 100).
pub(super) fn undone(expr: &ast::Expr, power: i32) -> Option<&ast::Expr> {
    let ast::Expr::BinOp(b) = expr else { return None };
    let factor = 10f64.powi(power.abs());
    let is_factor = |e: &ast::Expr| match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Int(i) => i.to_string() == format!("{factor}"),
            ast::Constant::Float(f) => *f == factor,
            _ => false,
        },
        _ => false,
    };
    match b.op {
        ast::Operator::Div if power > 0 && is_factor(&b.right) => Some(&b.left),
        ast::Operator::Mult if power < 0 && is_factor(&b.right) => Some(&b.left),
        ast::Operator::Mult if power < 0 && is_factor(&b.left) => Some(&b.right),
        _ => None,
    }
}

/// A decimal literal's text with its point moved `power` places right (left when
/// negative), written as a developer would (`0.5` × 1000 → `500`, `50` ÷ 100 → `0.5`);
/// `None` for other spellings (exponents, hex, imaginary).
pub(super) fn shifted(literal: &str, power: i32) -> Option<String> {
    let plain: String = literal.chars().filter(|&c| c != '_').collect();
    if plain.is_empty() || !plain.chars().all(|c| c.is_ascii_digit() || c == '.') || plain.matches('.').count() > 1 {
        return None;
    }
    let (whole, frac) = plain.split_once('.').unwrap_or((&plain, ""));
    let digits = format!("{whole}{frac}");
    let point = whole.len() as i32 + power;
    let (mut int, mut fraction) = if point <= 0 {
        (String::new(), format!("{}{digits}", "0".repeat(point.unsigned_abs() as usize)))
    } else if point as usize >= digits.len() {
        (format!("{digits}{}", "0".repeat(point as usize - digits.len())), String::new())
    } else {
        (digits[..point as usize].to_string(), digits[point as usize..].to_string())
    };
    int = int.trim_start_matches('0').to_string();
    fraction = fraction.trim_end_matches('0').to_string();
    if int.is_empty() {
        int.push('0');
    }
    Some(if fraction.is_empty() { int } else { format!("{int}.{fraction}") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_shift_their_point_as_a_developer_writes_them() {
        assert_eq!(shifted("5", 3).as_deref(), Some("5000"));
        assert_eq!(shifted("0.5", 3).as_deref(), Some("500"));
        assert_eq!(shifted("1.25", 3).as_deref(), Some("1250"));
        assert_eq!(shifted("100", -3).as_deref(), Some("0.1"));
        assert_eq!(shifted("2000", -3).as_deref(), Some("2"));
        assert_eq!(shifted("50", -2).as_deref(), Some("0.5"));
        assert_eq!(shifted("5", -2).as_deref(), Some("0.05"));
        assert_eq!(shifted("0.25", 2).as_deref(), Some("25"));
        assert_eq!(shifted("0", 3).as_deref(), Some("0"));
        assert_eq!(shifted("1_000", -3).as_deref(), Some("1"));
        assert_eq!(shifted("1e3", -3), None);
        assert_eq!(shifted("0x10", 3), None);
    }

    #[test]
    fn names_say_their_unit_or_only_their_quantity() {
        let renames = |name: &str| match named(name) {
            Some(Named::Unit(unit, names)) => Some((unit, names)),
            _ => None,
        };
        assert_eq!(renames("timeout_secs"), Some((Unit::Seconds, vec!["timeout_ms".into(), "timeout_millis".into()])));
        assert_eq!(renames("delay_ms"), Some((Unit::Milliseconds, vec!["delay_seconds".into(), "delay_secs".into()])));
        assert_eq!(renames("percent"), Some((Unit::Percent, vec!["fraction".into()])));
        assert_eq!(
            renames("discount_pct"),
            Some((Unit::Percent, vec!["discount_fraction".into(), "discount_frac".into()]))
        );
        assert!(matches!(named("max_wait"), Some(Named::Neutral { duration: true })));
        assert!(matches!(named("rate"), Some(Named::Neutral { duration: false })));
        assert!(named("items").is_none());
        assert!(named("msg").is_none());
    }

    #[test]
    fn prose_states_the_first_unit_it_names() {
        assert_eq!(stated(["wait (int): Milliseconds to wait."], true), Some(Unit::Milliseconds));
        assert_eq!(stated(["the delay, in seconds"], true), Some(Unit::Seconds));
        assert_eq!(stated(["the share, a fraction of the total"], false), Some(Unit::Fraction));
        assert_eq!(stated(["how long to wait"], true), None);
        let line = "wait (int): Milliseconds to wait, in ms.";
        let edits = restated(line, 10, Unit::Milliseconds);
        assert_eq!(edits, vec![(22..34, "Seconds".to_string()), (47..49, "seconds".to_string())]);
    }
}
