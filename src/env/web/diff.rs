//! Unified diffs between two texts, made by libgit2 (`git2::Patch::from_buffers`), so
//! the page shows exactly what `git diff` would.

use std::path::Path;

/// The unified diff from `old` to `new` of the file `path` (`a/path` → `b/path`), with
/// three lines of context; empty when the texts are equal.
pub(crate) fn unified(path: &str, old: &str, new: &str) -> Result<String, String> {
    if old == new {
        return Ok(String::new());
    }
    let name = Path::new(path);
    let mut options = git2::DiffOptions::new();
    options.context_lines(3);
    let mut patch =
        git2::Patch::from_buffers(old.as_bytes(), Some(name), new.as_bytes(), Some(name), Some(&mut options))
            .map_err(|e| format!("{path}: cannot diff: {}", e.message()))?;
    let buf = patch.to_buf().map_err(|e| format!("{path}: cannot print the diff: {}", e.message()))?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn diffs_like_git() {
        let diff = unified("m.py", "a\nb\nc\n", "a\nB\nc\n").unwrap();
        assert!(diff.contains("--- a/m.py\n+++ b/m.py\n"), "{diff}");
        assert!(diff.contains("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "{diff}");
        assert_eq!(unified("m.py", "same\n", "same\n").unwrap(), "");
    }
}
