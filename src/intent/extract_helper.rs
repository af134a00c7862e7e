//! `extract-helper` (refactor): a run of a function's statements that computes one value
//! moves into a private helper of its own, named after that value, and the function
//! calls it: `body = self._body(rows, width)` where the lines were.
//!
//! A run is found by [`flow`]: top-level statements of a module-level function or of a
//! method of a module-level class taking `self` (two or more, or one `if` chain, loop,
//! `with` or `try`), spanning 3 to 25 lines, none returning, yielding, awaiting,
//! defining, importing, deleting or declaring, binding exactly one name the rest of the
//! function reads (the output), starting with a statement that binds the output or a
//! name the run reads later and ending with one that mentions the output (a check of
//! the arguments before it stays put), and taking at most four values the function had
//! before it (its inputs: parameters first, in their order, then locals as the run reads
//! them; an output it may leave as it was is one too). For each output the longest such
//! run is the site. The helper is `_<output>`, defined after the function with the
//! run's lines as they were and `return <output>`: a method when the function is one
//! (static when the run does not read `self`), else a module-level function. No site
//! when that name is vague (`_data`, `_result`) or occurs anywhere in the tree's Python
//! files, or when a line would exceed 99 characters.
//!
//! The site's `symbol` is the function's qualified name, its `lines` the run's lines in
//! HEAD, its `uses` the function, and its `target` the helper's name with what finds the
//! run again in another tree (`_body|<first>|<last>`: hashes of the first line of the
//! run's first and last statements, each unique among the function's statements). A
//! feature whose lines lie in or next to the run collides with it: a branch added inside
//! it belongs in the helper in gold.

mod flow;

use std::collections::BTreeSet;

use super::kind::Kind;
use super::naming;
use super::rename_local::{functions, is_unique, Function};
use super::site::{Change, Rewrites, Site, Transform, Workspace};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};
use flow::{Body, Run};

pub(crate) struct ExtractHelper;

/// The longest line a call or helper header may make.
const MAX_WIDTH: usize = 99;

impl Transform for ExtractHelper {
    fn change(&self) -> Change {
        Change::Refactor(Rewrites::Block)
    }

    fn description(&self) -> &'static str {
        "moves a run of a function's statements that computes one value into a private helper named after it"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let words: BTreeSet<&str> = workspace
            .tree
            .keys()
            .filter(|path| path.ends_with(".py"))
            .filter_map(|path| snapshot::text_of(workspace.tree, path))
            .flat_map(naming::all_words)
            .collect();
        let mut sites = Vec::new();
        for module in workspace.modules {
            let functions = functions(module);
            for function in functions.iter().filter(|f| is_unique(&functions, &f.qual)) {
                let Some(body) = Body::of(module, function) else { continue };
                let anchors = anchors(module, function);
                for run in body.runs() {
                    let Some(helper) = helper_name(&run.output).filter(|h| !words.contains(h.as_str())) else {
                        continue;
                    };
                    let Some(target) = target(&anchors, &run, &helper) else { continue };
                    if extracted(module, function, &run, &helper).is_none() {
                        continue;
                    }
                    sites.push(Site {
                        kind: Kind::ExtractHelper,
                        path: module.path.clone(),
                        symbol: function.qual.clone(),
                        lines: run.lines.clone(),
                        uses: BTreeSet::from([function.qual.clone()]),
                        target: Some(target),
                        tests: Vec::new(),
                    });
                }
            }
        }
        sites
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let mut parts = site.target.as_deref()?.split('|');
        let (helper, first, last) = (parts.next()?, parts.next()?, parts.next()?);
        let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
        if naming::occurs(&module.text, helper) {
            return None;
        }
        let functions = functions(&module);
        let function = functions.iter().find(|f| f.qual == site.symbol).filter(|_| is_unique(&functions, &site.symbol))?;
        let body = Body::of(&module, function)?;
        let anchors = anchors(&module, function);
        let (start, end) = (anchored(&anchors, first)?, anchored(&anchors, last)? + 1);
        let run = body.run(start, end).filter(|run| helper_name(&run.output).as_deref() == Some(helper))?;
        let after = extracted(&module, function, &run, helper)?;
        Some(snapshot::with_file(tree, &site.path, &after))
    }

    fn message(&self, site: &Site) -> String {
        let helper = site.target.as_deref().and_then(|t| t.split('|').next()).unwrap_or_default();
        format!("Extract `{helper}` from `{}`", site.symbol)
    }
}

/// The helper's name for a run whose output is `output`: `_<output>`, unless the name
/// says little (`data`, `result`, a word of three letters or fewer) or is private already.
fn helper_name(output: &str) -> Option<String> {
    let vague = naming::words(output).len() == 1 && (output.len() <= 3 || naming::is_vague(output));
    let name = format!("_{output}");
    (!vague && !output.starts_with('_') && !naming::is_reserved(output)).then_some(name)
}

/// The site's target: the helper's name and the anchors of the run's first and last
/// statements, when each is unique among the function's statements (`anchors`).
fn target(anchors: &[String], run: &Run, helper: &str) -> Option<String> {
    let (first, last) = (&anchors[run.start], &anchors[run.end - 1]);
    let unique = |hash: &str| anchored(anchors, hash).is_some();
    (unique(first) && unique(last)).then(|| format!("{helper}|{first}|{last}"))
}

/// Each statement of `function`'s body by a short hash of its first line (trimmed):
/// what finds it again in a tree where other lines of its function differ.
fn anchors(module: &PyModule, function: &Function) -> Vec<String> {
    let first_line = |stmt| module.source(stmt).lines().next().unwrap_or_default().trim().to_string();
    function.body.iter().map(|stmt| snapshot::sha256_hex(first_line(stmt).as_bytes())[..10].to_string()).collect()
}

/// The index of the one statement whose anchor (of `anchors`) is `hash`.
fn anchored(anchors: &[String], hash: &str) -> Option<usize> {
    let mut found = anchors.iter().enumerate().filter(|(_, a)| *a == hash).map(|(i, _)| i);
    let index = found.next()?;
    found.next().is_none().then_some(index)
}

/// The module's text with `run` moved into the helper `helper`: the run's lines become
/// one call binding the output, and the helper follows the function (a blank line
/// before it for a method, two for a function). `None` when the run does not hold whole
/// lines, a line would be too wide, or the result does not parse.
fn extracted(module: &PyModule, function: &Function, run: &Run, helper: &str) -> Option<String> {
    let text = &module.text;
    let statements = &function.body[run.start..run.end];
    let start = module.whole_lines(&statements[0])?.start;
    let end = module.whole_lines(&statements[statements.len() - 1])?.end;
    let function_end = module.whole_lines(function.body.last()?)?.end;
    if !text[..end].ends_with('\n') || !text[..function_end].ends_with('\n') {
        return None;
    }
    let indent = module.indent_at(PyModule::span(&statements[0]).start);
    let def_indent = module.indent_at(function.span.start);
    let (receiver, mut params, decorator) = match (function.method, run.reads_self) {
        (true, true) => ("self.", vec!["self".to_string()], String::new()),
        (true, false) => ("self.", Vec::new(), format!("{def_indent}@staticmethod\n")),
        (false, _) => ("", Vec::new(), String::new()),
    };
    params.extend(run.inputs.iter().cloned());
    let call = format!("{indent}{} = {receiver}{helper}({})\n", run.output, run.inputs.join(", "));
    let header = format!("{decorator}{def_indent}def {helper}({}):\n", params.join(", "));
    if call.trim_end().len() > MAX_WIDTH || header.trim_end().len() > MAX_WIDTH {
        return None;
    }
    let gap = if function.method { "\n" } else { "\n\n" };
    let helper_text = format!("{gap}{header}{}{indent}return {}\n", &text[start..end], run.output);
    let after = [&text[..start], &call, &text[end..function_end], &helper_text, &text[function_end..]].concat();
    crate::python::parses(&after, &module.path).then_some(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_are_named_after_what_they_compute_unless_it_says_little() {
        assert_eq!(helper_name("header_lines").as_deref(), Some("_header_lines"));
        assert_eq!(helper_name("timeout").as_deref(), Some("_timeout"));
        assert_eq!(helper_name("result"), None);
        assert_eq!(helper_name("res"), None);
        assert_eq!(helper_name("_cache"), None);
    }
}
