//! The dataset card (`README.md`) and `.gitattributes` of a published dataset.
//!
//! The card's YAML front matter is what the Hub and `datasets` read: license, task
//! categories, tags, pretty name, size category, the `configs` ([`super::configs`]:
//! `default` over every task, one per level of the generated tasks, `real` for the tasks
//! of the projects' own history, all agent-facing, and `solutions`) with their
//! `data_files`, and `dataset_info` with the explicit features of each config's record,
//! so every shard loads with one schema even when a column is null in all of a shard's
//! rows. The body is for people: what the tasks are, how to leave the solutions out, how
//! they were made and verified, the substrates with their licences and sources, counts,
//! the fields, and usage; it names `real` only when the version has such tasks.
//!
//! Everything here is a pure function of its inputs (no clock, no paths of this
//! machine), so the same dataset version gives the same bytes.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::bundle::Manifest;
use crate::difficulty::Level;
use crate::forge::{Family, Group, SideRule};
use crate::resolve::{self, Resolver, Rung};

use super::configs::{configs, data_glob, TaskConfig, DEFAULT_CONFIG, SOLUTIONS_CONFIG};
use super::features::{fields_table, record_features, render_fields};
use super::records::{SolutionRecord, Split, TaskRecord};

/// Files over this size go through LFS (besides every bundle).
pub(crate) const LFS_THRESHOLD: u64 = 8 * 1024 * 1024;

/// What the card says that is not in the manifest.
#[derive(Debug, Clone)]
pub(crate) struct CardInfo<'a> {
    pub(crate) manifest: &'a Manifest,
    pub(crate) license: &'a str,
    pub(crate) pretty_name: &'a str,
    pub(crate) repo_id: Option<&'a str>,
    pub(crate) tags: &'a [String],
    pub(crate) test_ratio: f64,
    /// Rows per (task config, split); a missing entry means none.
    pub(crate) rows: &'a BTreeMap<(TaskConfig, Split), usize>,
    /// Split groups per split.
    pub(crate) groups: &'a BTreeMap<Split, usize>,
}

/// Tags every card carries; `--tags` adds to them.
pub(crate) const BASE_TAGS: [&str; 7] =
    ["code", "git", "merge-conflicts", "python", "reinforcement-learning", "software-engineering", "mergeforge"];

/// `.gitattributes`: every bundle through LFS, plus any other file over the threshold.
pub(crate) fn gitattributes(large_files: &[String]) -> String {
    let mut text = String::from("*.bundle filter=lfs diff=lfs merge=lfs -text\n");
    for path in large_files {
        let _ = writeln!(text, "{} filter=lfs diff=lfs merge=lfs -text", escape_attr_path(path));
    }
    text
}

/// `.gitattributes` patterns treat spaces and glob characters specially; our paths
/// are ids and fixed names, but escape them anyway.
fn escape_attr_path(path: &str) -> String {
    let mut out = String::new();
    for c in path.chars() {
        if matches!(c, ' ' | '*' | '?' | '[' | ']' | '\\' | '!' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The Hub's size category for a row count.
pub(crate) fn size_category(rows: usize) -> &'static str {
    match rows {
        0..=999 => "n<1K",
        1_000..=9_999 => "1K<n<10K",
        10_000..=99_999 => "10K<n<100K",
        100_000..=999_999 => "100K<n<1M",
        _ => "1M<n<10M",
    }
}

/// The whole `README.md`.
pub(crate) fn readme(info: &CardInfo) -> String {
    let mut out = String::new();
    front_matter(&mut out, info);
    body(&mut out, info);
    out
}

/// A YAML double-quoted scalar (JSON string syntax is valid YAML).
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

fn front_matter(out: &mut String, info: &CardInfo) {
    let m = info.manifest;
    out.push_str("---\n");
    let _ = writeln!(out, "license: {}", quoted(info.license));
    let _ = writeln!(out, "pretty_name: {}", quoted(info.pretty_name));
    out.push_str("task_categories:\n- text-generation\n");
    out.push_str("tags:\n");
    let mut tags: Vec<String> = BASE_TAGS.iter().map(|t| t.to_string()).collect();
    for tag in info.tags {
        if !tags.contains(tag) {
            tags.push(tag.clone());
        }
    }
    for tag in &tags {
        let _ = writeln!(out, "- {}", quoted(tag));
    }
    let _ = writeln!(out, "size_categories:\n- {}", quoted(size_category(m.counts.tasks)));
    out.push_str("configs:\n");
    let configs = configs(info.rows);
    for (name, splits) in &configs {
        let _ = writeln!(out, "- config_name: {name}");
        if name == DEFAULT_CONFIG {
            out.push_str("  default: true\n");
        }
        out.push_str("  data_files:\n");
        for split in splits {
            let _ = writeln!(out, "  - split: {}\n    path: {}", split.name(), quoted(&data_glob(name, *split)));
        }
    }
    out.push_str("dataset_info:\n");
    for (name, _) in &configs {
        let _ = writeln!(out, "- config_name: {name}\n  features:");
        let features = if name == SOLUTIONS_CONFIG {
            record_features::<SolutionRecord>()
        } else {
            record_features::<TaskRecord>()
        };
        render_fields(out, &features, 2);
    }
    out.push_str("---\n\n");
}

fn body(out: &mut String, info: &CardInfo) {
    let m = info.manifest;
    let _ = writeln!(out, "# {}\n", info.pretty_name);
    let _ = writeln!(
        out,
        "{} verified **merge-conflict tasks** for training and evaluating coding agents: real `git merge` \
conflicts in small Python projects, each proven solvable by running the project's tests. \
Dataset `{}`, version {}, made by {} {}.\n",
        m.counts.tasks, m.dataset, m.version, m.generator.name, m.generator.version
    );
    out.push_str(
        "A task is a repository in the middle of a conflicted merge: branch `ours` checked out, `theirs` merged, \
diff3 conflict markers in the files. The agent must produce the merged files; the task's test command \
decides. Every task ships as two plain git bundles: `bundles/<id>.bundle` with branches `base`, `ours` and \
`theirs` (nothing of the answer), and `solutions/<id>.bundle` with branch `gold` (the verified merge \
of ours and theirs), so it can be reproduced with git alone.\n\n",
    );
    let _ = write!(
        out,
        "The task configs ({}) hold exactly the fields of the task's `task.json` and the path of its `repo.bundle`: \
what an agent may see. ",
        code_list(&task_configs(info))
    );
    if has_real(info) {
        out.push_str("`default` holds every task; ");
        let levels: Vec<String> = task_configs(info).into_iter().filter(|c| Level::parse(c).is_some()).collect();
        if !levels.is_empty() {
            let _ = write!(out, "the level configs ({}) hold the generated tasks of their level; ", code_list(&levels));
        }
        let _ = write!(
            out,
            "`real` holds the tasks made from the projects' own history ({}): real merges and commits replayed, their \
authors and messages kept. A task in `real` is levelled like any other but listed in `real` only, and its solution \
record names the real commits it was made from (`origin`). ",
            code_list(&history_families())
        );
    }
    out.push_str(
        "Everything that tells the answer (the merged and gold texts, the summary, the mutations, every test outcome, \
the split group) is in the `solutions` config (`data/solutions/`) and the `solutions/` folder of gold bundles, which \
a trainer may leave out.\n\n",
    );
    usage(out, info);
    families(out, m);
    generation(out, m);
    substrates(out, m);
    counts(out, info);
    fields(out, info);
    layout(out, info);
    let _ = writeln!(
        out,
        "## License\n\n`{}` (the dataset); each substrate's licence is in the table above.",
        info.license
    );
}

/// The agent-facing configs the version has, `default` first, as the front matter lists them.
fn task_configs(info: &CardInfo) -> Vec<String> {
    configs(info.rows).into_iter().map(|(name, _)| name).filter(|name| name != SOLUTIONS_CONFIG).collect()
}

/// Whether the version has tasks made from a project's history (config `real`).
fn has_real(info: &CardInfo) -> bool {
    info.rows.iter().any(|((config, _), n)| *config == TaskConfig::Real && *n > 0)
}

/// The history families' names, in catalogue order.
fn history_families() -> Vec<&'static str> {
    Family::ALL.into_iter().filter(|f| f.group() == Group::History).map(Family::name).collect()
}

/// Names as inline code, comma-separated: `` `a`, `b` ``.
fn code_list<S: AsRef<str>>(names: &[S]) -> String {
    names.iter().map(|n| format!("`{}`", n.as_ref())).collect::<Vec<_>>().join(", ")
}

fn usage(out: &mut String, info: &CardInfo) {
    let m = info.manifest;
    let repo = info.repo_id.unwrap_or("OWNER/NAME");
    out.push_str("## Usage\n\n```python\nfrom datasets import load_dataset\n\n");
    let present = task_configs(info);
    let shown = if present.iter().any(|c| c == "hard") { "hard" } else { DEFAULT_CONFIG };
    let others: Vec<String> = present.iter().filter(|c| *c != shown).map(|c| quoted(c)).collect();
    let _ = writeln!(out, "tasks = load_dataset({}, {})   # or {}", quoted(repo), quoted(shown), others.join(", "));
    out.push_str("task = tasks[\"train\"][0]\n");
    out.push_str("print(task[\"id\"], task[\"difficulty\"][\"level\"], task[\"test_command\"], task[\"bundle\"])\n\n");
    let _ = writeln!(out, "solutions = load_dataset({}, \"solutions\")   # join on \"id\"", quoted(repo));
    out.push_str("gold = {s[\"id\"]: s for s in solutions[\"train\"]}[task[\"id\"]]\n");
    out.push_str("for f in gold[\"files\"]:\n    print(f[\"path\"], f[\"has_conflict\"])   # f[\"conflicted\"] has the markers, f[\"gold\"] the answer\n```\n\n");
    if info.repo_id.is_none() {
        out.push_str(
            "(`OWNER/NAME` is the Hub repository this folder is pushed to; a local path to the folder works too.)\n\n",
        );
    }
    out.push_str(
        "### Leaving the solutions out\n\n`load_dataset(..., \"default\")` (or any other task config) reads `data/tasks/` \
only and never touches `data/solutions/` or `solutions/`. To download the files of the tasks without any answer:\n\n\
```python\nfrom huggingface_hub import snapshot_download\n\n",
    );
    let _ = writeln!(
        out,
        "snapshot_download({}, repo_type=\"dataset\",\n                  allow_patterns=[\"README.md\", \"manifest.json\", \"data/tasks/**\", \"bundles/*\"])\n```\n",
        quoted(repo)
    );
    out.push_str("Reproduce one task with git alone (the bundles are stored with Git LFS):\n\n```sh\n");
    out.push_str("git clone bundles/<task_id>.bundle w && cd w\n");
    out.push_str("git checkout theirs && git checkout ours   # make both local branches\n");
    out.push_str("git merge theirs                           # the conflict\n");
    out.push_str("git merge --abort\n");
    out.push_str("git fetch ../solutions/<task_id>.bundle gold && git checkout FETCH_HEAD   # the solution\n```\n\n");
    out.push_str("### The environment server\n\n");
    out.push_str(
        "`mergeforge serve` is an RL/eval environment speaking the OpenEnv protocol (`reset`/`step`/`state` \
over HTTP and WebSocket): it materialises a task from its bundle as a real git repository in the middle \
of the merge, takes the agent's edits and pays a dense reward (conflict blocks removed, files parse, tests \
pass). `serve` and `eval` read this folder directly, solutions included (grading needs them; the agent \
never sees them), or the dataset version directory, which the generation command below rebuilds byte for byte:\n\n```sh\n",
    );
    out.push_str("mergeforge serve --dataset PATH/TO/THIS/FOLDER\n");
    let _ = writeln!(out, "{}", shell_command(&m.command));
    let _ = writeln!(out, "mergeforge serve --dataset generated/{}/{}\n```\n", m.dataset, m.version);
}

fn families(out: &mut String, m: &Manifest) {
    out.push_str("## Task families\n\n| family | how the conflict is made | tasks |\n|---|---|---|\n");
    for family in Family::ALL {
        let n = m.counts.by_family.get(&family).copied().unwrap_or(0);
        let _ = writeln!(out, "| `{}` | {} | {n} |", family.name(), family.description());
    }
    out.push('\n');
}

fn generation(out: &mut String, m: &Manifest) {
    out.push_str("## How it was generated and verified\n\n");
    let _ = writeln!(out, "- generator: `{} {}`", m.generator.name, m.generator.version);
    let _ = writeln!(out, "- command: `{}`", shell_command(&m.command));
    let _ = writeln!(out, "- seed: `{}`", m.seed);
    let _ = writeln!(
        out,
        "- verification: for every task the tests were run in a sandbox on the conflicted tree (must fail), \
on `gold` (must pass), on `ours` and `theirs` by the family's rule ({}), and on the results of the baseline \
resolvers ({}); all outcomes are in the solution record.",
        side_rules(),
        resolver_names(|_| true)
    );
    let _ = writeln!(
        out,
        "- levels: **easy** if a resolver taking one side passes ({}), **medium** if a combining resolver \
passes ({}), **hard** otherwise (`structural_level`; a curriculum refresh may re-level `level` by agents' solve \
rates); `score` in [0, 1] adds to the level's base the gold lines on no side, edits outside the conflicts, extra \
hunks and files, conflicted lines, and how weak the test signal is (how a task was made is not scored).\n",
        resolver_names(|r| r.rung() == Rung::Easy),
        resolver_names(|r| r.rung() == Rung::Medium)
    );
}

/// The record keys of the ladder's resolvers that `keep` selects, in ladder order, as
/// the record names them (`ours`, `union`, ...).
fn resolver_names(keep: impl Fn(&dyn Resolver) -> bool) -> String {
    let keys = resolve::record_keys();
    let names: Vec<String> = keys
        .iter()
        .filter(|(_, members)| members.iter().any(|r| keep(*r)))
        .map(|(key, _)| format!("`{key}`"))
        .collect();
    names.join(", ")
}

/// What each side rule requires of `ours` and `theirs`, with its families:
/// `each must fail: `a`, `b`; exactly one must pass: `c`; ...`.
fn side_rules() -> String {
    let mut rules: Vec<SideRule> = Vec::new();
    for rule in Family::ALL.map(Family::side_rule) {
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    rules
        .iter()
        .map(|rule| {
            let families: Vec<&str> =
                Family::ALL.into_iter().filter(|f| f.side_rule() == *rule).map(Family::name).collect();
            format!("{}: {}", rule.requirement(), code_list(&families))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Every substrate with its licence and source, as the manifest records them.
fn substrates(out: &mut String, m: &Manifest) {
    out.push_str("## Substrates\n\nThe Python projects the tasks come from, with their licences and sources:\n\n");
    out.push_str("| substrate | licence | source | commit | tree sha256 | tasks |\n|---|---|---|---|---|---|\n");
    let mut unknown = false;
    for s in &m.substrates {
        let commit =
            s.commit.as_deref().map(|c| format!("`{c}`")).unwrap_or_else(|| "(folder, not a git repository)".into());
        let cell = |value: &Option<String>, unknown: &mut bool| match value {
            Some(v) => v.replace('|', "\\|"),
            None => {
                *unknown = true;
                "unknown".to_string()
            }
        };
        let (license, source) = (cell(&s.license, &mut unknown), cell(&s.source, &mut unknown));
        let _ = writeln!(out, "| `{}` | {license} | {source} | {commit} | `{}` | {} |", s.name, s.tree, s.tasks);
    }
    if unknown {
        out.push_str(
            "\n\"unknown\": the version's manifest does not record it (a substrate config without `license` or \
`source`, or a version made before they were recorded); check the project before reusing its code.\n",
        );
    }
    out.push('\n');
}

fn counts(out: &mut String, info: &CardInfo) {
    let m = info.manifest;
    let pct = (info.test_ratio * 100.0 * 10.0).round() / 10.0;
    let groups = |split: Split| info.groups.get(&split).copied().unwrap_or(0);
    let real = has_real(info);
    out.push_str("## Counts\n\n");
    out.push_str(
        "Splits are by **group**, so that tasks made from the same code never straddle them: a task's group is its \
substrate, the path of its first conflicted file (in path order) and the qualified name of the function, class \
or module level enclosing the first line of its first conflict hunk (`solutions` config, field `group`). ",
    );
    if real {
        out.push_str(
            "A task of a project's history is grouped by the real commit it stands for instead \
(`<substrate>:commit:<id>`). ",
        );
    }
    let _ = writeln!(
        out,
        "A group's split is fixed by a hash of the group (sha256, first 8 bytes as a fraction; below {} goes to \
`test`, about {pct}% of groups), so it keeps its split across versions. {} groups in train, {} in test; none in both.\n",
        info.test_ratio,
        groups(Split::Train),
        groups(Split::Test)
    );
    out.push_str("| config | train | test | total |\n|---|---|---|---|\n");
    let row = |config: TaskConfig, split: Split| info.rows.get(&(config, split)).copied().unwrap_or(0);
    let (mut train, mut test) = (0, 0);
    for config in TaskConfig::ALL.into_iter().filter(|c| real || *c != TaskConfig::Real) {
        let (a, b) = (row(config, Split::Train), row(config, Split::Test));
        train += a;
        test += b;
        let _ = writeln!(out, "| `{}` | {a} | {b} | {} |", config.name(), a + b);
    }
    let _ = writeln!(out, "| **`{DEFAULT_CONFIG}`** | {train} | {test} | {} |\n", train + test);
    out.push_str("| family |");
    for level in Level::ALL {
        let _ = write!(out, " {} |", level.name());
    }
    out.push_str(" total |\n|---|---|---|---|---|\n");
    for family in Family::ALL {
        let mut cells = [0usize; 3];
        for task in m.tasks.iter().filter(|t| t.family == family) {
            if let Some(i) = Level::ALL.iter().position(|l| *l == task.level) {
                cells[i] += 1;
            }
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            family.name(),
            cells[0],
            cells[1],
            cells[2],
            cells.iter().sum::<usize>()
        );
    }
    let by_level = |l: Level| m.counts.by_level.get(&l).copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "| **all** | {} | {} | {} | {} |\n",
        by_level(Level::Easy),
        by_level(Level::Medium),
        by_level(Level::Hard),
        m.counts.tasks
    );
    if real {
        let _ = writeln!(
            out,
            "The tasks of {} are levelled like the others and counted here by level, but published in `real`, not in \
their level's config.\n",
            code_list(&history_families())
        );
    }
}

fn fields(out: &mut String, info: &CardInfo) {
    out.push_str("## Record fields\n\nOne JSON object per task in each config; every row has every field, with the same types.\n\n");
    let _ = writeln!(out, "### Task configs ({}): `task.json` and the bundle\n", code_list(&task_configs(info)));
    fields_table::<TaskRecord>(out);
    out.push_str("\n### `solutions`: `solution.json`, the split group and the gold bundle\n\n");
    fields_table::<SolutionRecord>(out);
    out.push_str("\nAn outcome is `{passed, failed_tests, timed_out}`; `failed_tests` holds pytest node ids.\n\n");
}

fn layout(out: &mut String, info: &CardInfo) {
    let real = has_real(info);
    out.push_str("## Files\n\n```\n");
    let mut files = vec![
        ("README.md", "this card"),
        ("manifest.json", "the generator's manifest of the version (sha256 of every task.json)"),
        ("data/tasks/<level>/<split>-NNNNN.jsonl", "the task records, shards of at most 8 MiB"),
        ("data/solutions/<split>-NNNNN.jsonl", "the solution records (answers)"),
        ("bundles/<task_id>.bundle", "the task repositories (Git LFS)"),
        ("solutions/<task_id>.bundle", "the gold merges (Git LFS; answers)"),
        (".gitattributes", "bundles and files over 8 MiB through LFS"),
    ];
    if real {
        files[2].1 = "the generated task records by level, shards of at most 8 MiB";
        files.insert(3, ("data/tasks/real/<split>-NNNNN.jsonl", "the task records of the projects' history"));
    }
    for (path, what) in files {
        let _ = writeln!(out, "{path:<40}{what}");
    }
    out.push_str("```\n\n");
    let own: Vec<String> = task_configs(info).into_iter().filter(|c| c != DEFAULT_CONFIG).collect();
    let _ = writeln!(
        out,
        "Config `default` reads `data/tasks/*/<split>-*.jsonl` (every task); {}; `solutions` reads \
`data/solutions/<split>-*.jsonl`.\n",
        match own.len() {
            1 => format!("config {} reads its own folder", code_list(&own)),
            _ => format!("configs {} read their own folder", code_list(&own)),
        }
    );
}

/// A command line for a shell: words with characters a shell treats specially are quoted.
pub(crate) fn shell_command(argv: &[String]) -> String {
    argv.iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word.chars().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ',' | '=' | ':' | '@' | '+')
                });
            if plain {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed sample's manifest, its first task made a merge-replay task.
    fn manifest_with_one_real_task() -> Manifest {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/mergeforge-embedded/1.0.0");
        let (mut manifest, _) = crate::bundle::manifest::read(&dir).unwrap();
        manifest.tasks[0].family = Family::MergeReplay;
        manifest
    }

    #[test]
    fn the_card_names_real_only_when_the_version_has_tasks_of_a_history() {
        let manifest = manifest_with_one_real_task();
        let generated = BTreeMap::from([
            ((TaskConfig::Level(Level::Easy), Split::Train), 3),
            ((TaskConfig::Level(Level::Hard), Split::Test), 2),
        ]);
        let mut mixed = generated.clone();
        mixed.insert((TaskConfig::Real, Split::Train), 1);
        let groups = BTreeMap::from([(Split::Train, 2), (Split::Test, 1)]);
        let card = |rows: &BTreeMap<(TaskConfig, Split), usize>| {
            readme(&CardInfo {
                manifest: &manifest,
                license: "mit",
                pretty_name: "t",
                repo_id: Some("o/n"),
                tags: &[],
                test_ratio: 0.2,
                rows,
                groups: &groups,
            })
        };
        let real_lines = [
            "- config_name: real\n  data_files:\n  - split: train\n    path: \"data/tasks/real/train-*.jsonl\"\n",
            "- config_name: real\n  features:\n",
            "The task configs (`default`, `easy`, `hard`, `real`) hold",
            "the level configs (`easy`, `hard`) hold the generated tasks of their level; `real` holds the tasks made \
             from the projects' own history (`merge-replay`",
            "load_dataset(\"o/n\", \"hard\")   # or \"default\", \"easy\", \"real\"",
            "`<substrate>:commit:<id>`",
            "| `real` | 1 | 0 | 1 |\n| **`default`** | 4 | 2 | 6 |",
            "but published in `real`, not in their level's config",
            "### Task configs (`default`, `easy`, `hard`, `real`)",
            "data/tasks/real/<split>-NNNNN.jsonl     the task records of the projects' history",
            "configs `easy`, `hard`, `real` read their own folder",
        ];
        let always = [
            "- config_name: default\n  default: true\n  data_files:\n  - split: train\n    path: \"data/tasks/*/train-*.jsonl\"",
            "| `easy` | 3 | 0 | 3 |\n| `medium` | 0 | 0 | 0 |\n| `hard` | 0 | 2 | 2 |\n",
            "(or any other task config) reads `data/tasks/` only",
            "recorded, not required: `merge-replay`",
            "exactly one must pass: `divergent-edit`",
        ];
        let with = card(&mixed);
        let without = card(&generated);
        for needle in always.iter().chain(&real_lines) {
            assert!(with.contains(needle), "the card of a version with real tasks lacks {needle:?}:\n{with}");
        }
        for needle in always {
            assert!(without.contains(needle), "the card lacks {needle:?}:\n{without}");
        }
        assert!(without.contains("| **`default`** | 3 | 2 | 5 |"), "{without}");
        assert!(without.contains("The task configs (`default`, `easy`, `hard`) hold"), "{without}");
        assert!(!without.contains("real`"), "a card without real tasks names `real`:\n{without}");
        assert!(!without.contains("data/tasks/real"), "{without}");
    }

    #[test]
    fn large_files_and_sizes() {
        assert_eq!(
            gitattributes(&["manifest.json".into()]),
            "*.bundle filter=lfs diff=lfs merge=lfs -text\nmanifest.json filter=lfs diff=lfs merge=lfs -text\n"
        );
        assert_eq!(size_category(999), "n<1K");
        assert_eq!(size_category(1000), "1K<n<10K");
        assert_eq!(size_category(250_000), "100K<n<1M");
        assert_eq!(shell_command(&["a".into(), "b c".into(), "it's".into()]), "a 'b c' 'it'\\''s'");
    }
}
