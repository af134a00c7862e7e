//! The source tree's shape, as the house style asks: no file in `src/` over 600 lines, and
//! no two files that import each other (a `use` or a path in the code of each naming the
//! other: `crate::…`, `super::…`, or a child module's `child::Item`). Module files are read as text: `mod` declarations do not count as
//! imports, `#[cfg(test)]` modules and comments are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::root;

const MAX_LINES: usize = 600;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`src/a/mod.rs` and `src/a.rs` → `["a"]`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut segments: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(segments.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        segments.pop();
    }
    segments
}

/// The code a file imports with: comments and the `#[cfg(test)]` tail dropped.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Every path a file names: the paths of its `use` items (braces expanded) and every
/// `crate::…`/`super::…` path in its code.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        let body: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
        expand("", &body, &mut paths);
    }
    // Every path in the code (`crate::a::b`, `super::x`, `child::Item`, a catalogue macro's
    // `module::Builder` included): a run of identifier characters and `::` that starts a path.
    let text = code;
    for (at, _) in text.match_indices("::") {
        let start = text[..at].rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(0, |i| i + 1);
        if start < at && !text[start..at].contains("::") {
            let path: String =
                text[start..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            paths.push(path);
        }
    }
    paths
}

/// `a::{b, c::{d}}` → `a::b`, `a::c::d`.
fn expand(prefix: &str, body: &str, out: &mut Vec<String>) {
    let mut depth = 0;
    let mut item = String::new();
    let mut items = Vec::new();
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            items.push(std::mem::take(&mut item));
        } else {
            item.push(c);
        }
    }
    items.push(item);
    for item in items {
        match item.find('{') {
            Some(open) if item.ends_with('}') => {
                expand(&format!("{prefix}{}", &item[..open]), &item[open + 1..item.len() - 1], out)
            }
            _ => out.push(format!("{prefix}{}", item.split(" as ").next().unwrap_or(""))),
        }
    }
}

/// The files of `src/` each file imports.
fn imports(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let file_of =
        |segments: &[String]| (1..=segments.len()).filter_map(|n| modules.get(&segments[..n])).next_back().cloned();
    let mut graph = BTreeMap::new();
    for file in &files {
        let me = module_of(src, file);
        let mut targets = BTreeSet::new();
        for path in named_paths(&code(&std::fs::read_to_string(file).unwrap())) {
            let mut segments: Vec<String> = path.split("::").filter(|s| !s.is_empty()).map(String::from).collect();
            let absolute = match segments.first().map(String::as_str) {
                Some("crate") => segments.split_off(1),
                Some("super") => {
                    // `super` of module a::b (`a/b.rs`) is a; of module a (`a/mod.rs`), a's parent.
                    let mut base = me.clone();
                    while segments.first().is_some_and(|s| s == "super") {
                        segments.remove(0);
                        base.pop();
                    }
                    base.extend(segments);
                    base
                }
                Some("self") => me.iter().cloned().chain(segments.into_iter().skip(1)).collect(),
                Some(first) if modules.contains_key(&[me.clone(), vec![first.to_string()]].concat()) => {
                    [me.clone(), segments].concat()
                }
                _ => continue,
            };
            if let Some(target) = file_of(&absolute).filter(|t| t != file) {
                targets.insert(target);
            }
        }
        graph.insert(file.clone(), targets);
    }
    graph
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, n)| *n > MAX_LINES)
        .map(|(f, n)| format!("{} ({n} lines)", f.display()))
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}

#[test]
fn no_two_source_files_import_each_other() {
    let graph = imports(&root().join("src"));
    let cycles: Vec<String> = graph
        .iter()
        .flat_map(|(a, targets)| targets.iter().filter(|b| *a < **b && graph[*b].contains(a)).map(move |b| (a, b)))
        .map(|(a, b)| format!("{} <-> {}", a.display(), b.display()))
        .collect();
    assert!(cycles.is_empty(), "files importing each other: {cycles:#?}");
}
