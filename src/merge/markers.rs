//! Reading and writing diff3-style conflict markers.
//!
//! A conflicted file is a sequence of [`Segment`]s: clean text, or a conflict with the
//! `ours`, `base` and `theirs` text of one hunk. Every line keeps its newline, so
//! joining the segments back gives the exact file.

/// Marker lines, as written with the labels mergeforge uses.
pub(crate) const OURS_MARKER: &str = "<<<<<<< ours";
pub(crate) const BASE_MARKER: &str = "||||||| base";
pub(crate) const SPLIT_MARKER: &str = "=======";
pub(crate) const THEIRS_MARKER: &str = ">>>>>>> theirs";

/// One piece of a conflicted file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    Clean(String),
    Conflict { ours: String, base: String, theirs: String },
}

/// One conflict hunk: the text of each side, every line with its newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub(crate) ours: String,
    pub(crate) base: String,
    pub(crate) theirs: String,
}

/// A piece of a conflicted file with its exact raw text (markers included for a hunk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSegment {
    pub(crate) raw: String,
    /// The hunk's sides when this piece is a conflict block.
    pub hunk: Option<Hunk>,
}

/// Splits a file into clean text and conflict hunks. Marker lines are recognised by
/// their prefix (`<<<<<<<`, `|||||||`, `=======`, `>>>>>>>`) whatever the label.
/// Unterminated markers are kept as clean text.
pub(crate) fn parse(text: &str) -> Vec<Segment> {
    raw_segments(text)
        .into_iter()
        .map(|segment| match segment.hunk {
            Some(Hunk { ours, base, theirs }) => Segment::Conflict { ours, base, theirs },
            None => Segment::Clean(segment.raw),
        })
        .collect()
}

/// [`parse`], keeping each piece's raw text (a hunk's with its marker lines).
pub(crate) fn raw_segments(text: &str) -> Vec<RawSegment> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = Vec::new();
    let mut clean = String::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("<<<<<<<") {
            if let Some((hunk, next)) = read_hunk(&lines, i) {
                if !clean.is_empty() {
                    out.push(RawSegment { raw: std::mem::take(&mut clean), hunk: None });
                }
                out.push(RawSegment { raw: lines[i..next].concat(), hunk: Some(hunk) });
                i = next;
                continue;
            }
        }
        clean.push_str(lines[i]);
        i += 1;
    }
    if !clean.is_empty() {
        out.push(RawSegment { raw: clean, hunk: None });
    }
    out
}

/// The hunk whose opening marker is `lines[start]`, and the index after its closing one.
fn read_hunk(lines: &[&str], start: usize) -> Option<(Hunk, usize)> {
    #[derive(PartialEq)]
    enum Part {
        Ours,
        Base,
        Theirs,
    }
    let mut hunk = Hunk { ours: String::new(), base: String::new(), theirs: String::new() };
    let mut part = Part::Ours;
    for (offset, line) in lines[start + 1..].iter().enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if line.starts_with("|||||||") && part == Part::Ours {
            part = Part::Base;
        } else if bare == "=======" && part != Part::Theirs {
            part = Part::Theirs;
        } else if line.starts_with(">>>>>>>") && part == Part::Theirs {
            return Some((hunk, start + offset + 2));
        } else if line.starts_with("<<<<<<<") {
            return None;
        } else {
            match part {
                Part::Ours => hunk.ours.push_str(line),
                Part::Base => hunk.base.push_str(line),
                Part::Theirs => hunk.theirs.push_str(line),
            }
        }
    }
    None
}

/// Number of conflict hunks in a text.
pub(crate) fn count_conflicts(text: &str) -> usize {
    parse(text).iter().filter(|s| matches!(s, Segment::Conflict { .. })).count()
}

/// Whether any line of `text` looks like a conflict marker.
pub(crate) fn has_markers(text: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>") || l.starts_with("|||||||") || l == "=======")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejoins() {
        let text = "a\n<<<<<<< ours\nx\n||||||| base\ny\n=======\nz\n>>>>>>> theirs\nb\n";
        let segments = parse(text);
        assert_eq!(segments.len(), 3);
        assert_eq!(segments[1], Segment::Conflict { ours: "x\n".into(), base: "y\n".into(), theirs: "z\n".into() });
        assert_eq!(count_conflicts(text), 1);
        assert!(has_markers(text));
    }

    #[test]
    fn unterminated_marker_is_text() {
        let text = "<<<<<<< ours\nx\n";
        assert_eq!(parse(text), vec![Segment::Clean(text.into())]);
    }
}
