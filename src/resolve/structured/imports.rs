//! One-line imports (`import a, b` / `from m import a, b as c`) as name lists, so that two
//! sides' edits of the same import can be unioned.

use rustpython_ast as ast;

/// A one-line import statement, split for merging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    /// Everything before the import keyword: comments and blank lines above, indentation.
    pub(crate) lead: String,
    /// `import` or `from <module> import`: imports correspond when their heads are equal.
    pub(crate) head: String,
    /// The imported names as written (`b as c`).
    pub(crate) names: Vec<String>,
    /// The end of the line (its newline, if any).
    pub(crate) trail: String,
}

impl Import {
    /// The import in `text` (one statement's text, comments above included), if `stmt`
    /// is an import written on one line without parentheses, continuation or comment.
    pub(crate) fn parse(text: &str, stmt: &ast::Stmt) -> Option<Import> {
        if !matches!(stmt, ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_)) {
            return None;
        }
        let body = text.trim_end_matches(['\n', '\r']);
        let trail = text[body.len()..].to_string();
        let line_start = body.rfind('\n').map_or(0, |i| i + 1);
        let line = &body[line_start..];
        if line.contains(['(', ')', '\\', '#', ';']) {
            return None;
        }
        let indent = line.len() - line.trim_start().len();
        let statement = line.trim();
        let (head, names) = if let Some(rest) = statement.strip_prefix("from ") {
            let at = rest.find(" import ")?;
            (format!("from {} import", rest[..at].trim()), &rest[at + " import ".len()..])
        } else {
            ("import".to_string(), statement.strip_prefix("import ")?)
        };
        let names: Vec<String> = names.split(',').map(|n| n.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        if names.iter().any(String::is_empty) || names.iter().any(|n| n == "*") {
            return None;
        }
        Some(Import { lead: body[..line_start + indent].to_string(), head, names, trail })
    }

    /// The import's text.
    pub(crate) fn render(&self) -> String {
        format!("{}{} {}{}", self.lead, self.head, self.names.join(", "), self.trail)
    }

    /// Both sides' changes to one import: names either side removed are gone, names
    /// either side added are kept (ours first). `None` if the statements are not the
    /// same import or their surroundings conflict.
    pub(crate) fn merge(base: &Import, ours: &Import, theirs: &Import) -> Option<Import> {
        if base.head != ours.head || base.head != theirs.head {
            return None;
        }
        let lead = crate::resolve::resolver::merge_text(&base.lead, &ours.lead, &theirs.lead)?;
        let trail = crate::resolve::resolver::merge_text(&base.trail, &ours.trail, &theirs.trail)?;
        let removed_by_theirs = |n: &String| base.names.contains(n) && !theirs.names.contains(n);
        let mut names: Vec<String> = ours.names.iter().filter(|n| !removed_by_theirs(n)).cloned().collect();
        for name in &theirs.names {
            if !base.names.contains(name) && !names.contains(name) {
                names.push(name.clone());
            }
        }
        if names.is_empty() {
            return None;
        }
        Some(Import { lead, head: base.head.clone(), names, trail })
    }
}
