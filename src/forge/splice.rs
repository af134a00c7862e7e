//! Applying several text splices to one file at once.

/// A replacement of `start..end` by `text`.
#[derive(Debug, Clone)]
pub(crate) struct Splice {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
}

impl Splice {
    pub(crate) fn new(range: std::ops::Range<usize>, text: impl Into<String>) -> Self {
        Splice { start: range.start, end: range.end, text: text.into() }
    }
}

/// Applies non-overlapping splices; `None` if they overlap or cut a character.
pub(crate) fn apply(source: &str, splices: &[Splice]) -> Option<String> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.start, s.end));
    let mut out = String::with_capacity(source.len());
    let mut cursor = 0;
    for splice in sorted {
        if splice.start < cursor
            || splice.end > source.len()
            || !source.is_char_boundary(splice.start)
            || !source.is_char_boundary(splice.end)
        {
            return None;
        }
        out.push_str(&source[cursor..splice.start]);
        out.push_str(&splice.text);
        cursor = splice.end;
    }
    out.push_str(&source[cursor..]);
    Some(out)
}
