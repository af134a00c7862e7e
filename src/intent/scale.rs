//! Units a number can be in, as the `Contract::Units` kinds read and convert them: which
//! names and which words of prose say a unit ([`Unit`]), the one conversion each unit
//! changes to (seconds ↔ milliseconds, percent ↔ fraction), and an expression's text
//! converted by a power of ten the way a developer writes it ([`converted`]): a numeric
//! literal folded (`5` → `5000`, `50` → `0.5`), a scaling that the conversion undoes
//! dropped (`delay_ms / 1000` → `delay_ms`), anything else multiplied or divided.

use std::ops::Range;

use rustpython_ast as ast;

use super::naming;
use crate::python::text::{binop_precedence, precedence};
use crate::python::walk::{child_blocks, expr_children, stmt_exprs};
use crate::python::PyModule;

/// One edit of a file: a byte range and its replacement.
pub(super) type Edit = (Range<usize>, String);

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
const DURATION_WORDS: &[&str] =
    &["timeout", "delay", "wait", "interval", "period", "duration", "ttl", "backoff", "elapsed"];

/// Words of a name that make it a ratio without saying the scale (`rate`).
const RATIO_WORDS: &[&str] = &["rate", "probability", "share", "progress"];

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
pub(super) fn restated(line: &str, start: usize, unit: Unit) -> Vec<Edit> {
    let mut out: Vec<Edit> = Vec::new();
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

/// The walk over code that reads values now in the new unit (*targets*: a parameter's
/// reads, a function's calls) and converts each back where the code needs the old one:
/// a scaling the conversion undoes goes (`wait / 1000.0` → `wait`), the numbers a target
/// is compared with are converted (`percent > 100` → `fraction > 1`), a truth test
/// (`if delay:`) or a type check (`isinstance`) stays, elsewhere the target is scaled
/// back (`delay / 1000`).
pub(super) struct Rescale<'a> {
    module: &'a PyModule,
    is_target: &'a dyn Fn(&ast::Expr) -> bool,
    /// A target's new text (a renamed parameter, a call as written).
    text: &'a dyn Fn(&ast::Expr) -> String,
    /// Targets are the old values times ten to this power.
    power: i32,
    /// Whether the walk goes into nested definitions' bodies (a whole file) or stays in
    /// one function's own scope.
    pub(super) nested: bool,
    pub(super) edits: Vec<Edit>,
    /// Whether the code uses a target as a number (arithmetic, a comparison with a
    /// number, `sleep`).
    pub(super) numeric: bool,
}

impl<'a> Rescale<'a> {
    pub(super) fn new(
        module: &'a PyModule,
        is_target: &'a dyn Fn(&ast::Expr) -> bool,
        text: &'a dyn Fn(&ast::Expr) -> String,
        power: i32,
    ) -> Self {
        Rescale { module, is_target, text, power, nested: false, edits: Vec::new(), numeric: false }
    }

    pub(super) fn block(&mut self, block: &[ast::Stmt]) {
        for stmt in block {
            // A value tested for truth (`if delay:`) means the same in either unit.
            let test = match stmt {
                ast::Stmt::If(s) => Some(s.test.as_ref()),
                ast::Stmt::While(s) => Some(s.test.as_ref()),
                ast::Stmt::Assert(s) => Some(s.test.as_ref()),
                _ => None,
            };
            for expr in stmt_exprs(stmt) {
                if !test.is_some_and(|t| std::ptr::eq(t, expr) && (self.is_target)(expr)) {
                    self.expr(expr, false);
                }
            }
            match stmt {
                ast::Stmt::FunctionDef(d) if self.nested => self.block(&d.body),
                ast::Stmt::AsyncFunctionDef(d) if self.nested => self.block(&d.body),
                ast::Stmt::ClassDef(c) if self.nested => self.block(&c.body),
                ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_) => {}
                other => child_blocks(other).into_iter().for_each(|b| self.block(b)),
            }
            if let ast::Stmt::AugAssign(a) = stmt {
                self.numeric |= (self.is_target)(&a.value);
            }
        }
    }

    /// Whether a comparison is `target is None` or `target is not None`.
    fn is_none_test(&self, compare: &ast::ExprCompare) -> bool {
        let none = |e: &ast::Expr| matches!(e, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::None));
        (self.is_target)(&compare.left)
            && matches!(compare.ops[..], [ast::CmpOp::Is | ast::CmpOp::IsNot])
            && compare.comparators.first().is_some_and(none)
    }

    /// A target as written, and its arguments walked (a call of the function among
    /// them overlaps it: the splice refuses).
    fn target(&mut self, expr: &ast::Expr) -> String {
        if let ast::Expr::Call(call) = expr {
            call.args.iter().for_each(|a| self.expr(a, false));
            call.keywords.iter().for_each(|k| self.expr(&k.value, false));
        }
        (self.text)(expr)
    }

    /// Converts the targets in `expr`; `tight` when its parent binds tighter than `*`
    /// (or is `*`, `/` with `expr` on the right), so a converted target needs parentheses.
    pub(super) fn expr(&mut self, expr: &ast::Expr, tight: bool) {
        let span = PyModule::span(expr);
        let is_target = self.is_target;
        match expr {
            _ if is_target(expr) => {
                let factor = 10u32.pow(self.power.unsigned_abs());
                let op = if self.power > 0 { "/" } else { "*" };
                let read = format!("{} {op} {factor}", self.target(expr));
                self.edits.push((span, if tight { format!("({read})") } else { read }));
                return;
            }
            ast::Expr::BinOp(b) => {
                if let Some(inner) = undone(expr, -self.power).filter(|inner| is_target(inner)) {
                    self.numeric = true;
                    let text = self.target(inner);
                    self.edits.push((span, if tight { format!("({text})") } else { text }));
                    return;
                }
                self.numeric |= is_target(&b.left) || is_target(&b.right);
                let strength = binop_precedence(&b.op);
                self.expr(&b.left, strength > 12);
                self.expr(&b.right, strength >= 12);
                return;
            }
            ast::Expr::Compare(c) if self.is_none_test(c) => {
                let text = self.target(&c.left);
                self.edits.push((PyModule::span(c.left.as_ref()), text));
                return;
            }
            ast::Expr::Compare(c) => {
                let operands: Vec<&ast::Expr> = std::iter::once(c.left.as_ref()).chain(&c.comparators).collect();
                let numbers = operands.iter().filter(|o| !is_target(o)).all(|o| is_number(o));
                if operands.iter().any(|o| is_target(o)) && numbers {
                    self.numeric = true;
                    for operand in operands {
                        let text = if is_target(operand) {
                            self.target(operand)
                        } else {
                            converted(self.module, operand, self.power).unwrap_or_default()
                        };
                        self.edits.push((PyModule::span(operand), text));
                    }
                    return;
                }
            }
            // Neither a type check nor a truth test depends on the unit.
            ast::Expr::Call(call)
                if spelled_name(&call.func, "isinstance") && call.args.first().is_some_and(is_target) =>
            {
                call.args[1..].iter().for_each(|a| self.expr(a, false));
                return;
            }
            ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not && is_target(&u.operand) => return,
            ast::Expr::IfExp(i) if is_target(&i.test) => {
                self.expr(&i.body, false);
                self.expr(&i.orelse, false);
                return;
            }
            ast::Expr::Call(call) => {
                let sleeps = matches!(call.func.as_ref(), ast::Expr::Name(n) if n.id.as_str() == "sleep")
                    || matches!(call.func.as_ref(), ast::Expr::Attribute(a) if a.attr.as_str() == "sleep");
                self.numeric |= sleeps && call.args.first().is_some_and(is_target);
                self.expr(&call.func, true);
                call.args.iter().for_each(|a| self.expr(a, false));
                call.keywords.iter().for_each(|k| self.expr(&k.value, false));
                return;
            }
            ast::Expr::UnaryOp(u) if u.op != ast::UnaryOp::Not => {
                self.numeric |= is_target(&u.operand);
                self.expr(&u.operand, true);
                return;
            }
            ast::Expr::Attribute(a) => return self.expr(&a.value, true),
            ast::Expr::Subscript(s) => {
                self.expr(&s.value, true);
                self.expr(&s.slice, false);
                return;
            }
            ast::Expr::Await(a) => return self.expr(&a.value, true),
            ast::Expr::Lambda(_) if !self.nested => return,
            _ => {}
        }
        for child in expr_children(expr) {
            self.expr(child, false);
        }
    }
}

/// Whether `expr` is the bare name `name`.
fn spelled_name(expr: &ast::Expr, name: &str) -> bool {
    matches!(expr, ast::Expr::Name(n) if n.id.as_str() == name)
}

/// Whether a method stores the parameter in an attribute (`self.wait = wait`) that its
/// class uses as a number (`now() - self.wait`).
pub(super) fn stored_as_number(module: &PyModule, function: &super::rename_local::Function, old: &str) -> bool {
    let Some((class, _)) = function.qual.split_once('.') else { return false };
    let class = module.suite.iter().find_map(|s| match s {
        ast::Stmt::ClassDef(c) if c.name.as_str() == class => Some(c),
        _ => None,
    });
    let Some(class) = class else { return false };
    let mut stmts = Vec::new();
    crate::python::walk::walk_stmts(function.body, &mut stmts);
    let mut attributes = std::collections::BTreeSet::new();
    for stmt in stmts {
        let ast::Stmt::Assign(assign) = stmt else { continue };
        if !matches!(assign.value.as_ref(), ast::Expr::Name(n) if n.id.as_str() == old) {
            continue;
        }
        for target in &assign.targets {
            if let ast::Expr::Attribute(a) = target {
                if matches!(a.value.as_ref(), ast::Expr::Name(v) if v.id.as_str() == "self") {
                    attributes.insert(a.attr.to_string());
                }
            }
        }
    }
    attributes.iter().any(|attribute| {
        let is_attribute = |e: &ast::Expr| {
            matches!(e, ast::Expr::Attribute(a) if a.attr.as_str() == attribute && matches!(a.value.as_ref(), ast::Expr::Name(v) if v.id.as_str() == "self"))
        };
        let text = |e: &ast::Expr| module.source(e).to_string();
        let mut reads = Rescale::new(module, &is_attribute, &text, 3);
        reads.nested = true;
        reads.block(&class.body);
        reads.numeric
    })
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
