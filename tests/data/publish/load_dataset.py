"""Loads a published folder with `datasets`, offline, and describes what it found.

Usage: python load_dataset.py HFDIR
Prints one JSON object: the configs, rows per config and split, the features of every
config (as a type tree), the split groups of the `solutions` config per split, the
card's YAML front matter, and a few fields of one task row and one solution row.
The Rust test (tests/it/publish.rs) makes the assertions.
"""

import json
import sys

import yaml
from datasets import get_dataset_config_names, load_dataset


def kind(feature):
    """A JSON-able type tree: dtype strings, {"struct": ...} and {"list": ...}."""
    if isinstance(feature, dict):
        return {"struct": {name: kind(sub) for name, sub in feature.items()}}
    if isinstance(feature, list):
        return {"list": kind(feature[0])}
    name = type(feature).__name__
    if name in ("List", "LargeList", "Sequence"):
        return {"list": kind(feature.feature)}
    if name == "Value":
        return feature.dtype
    return name


def front_matter(path):
    text = open(path, encoding="utf-8").read()
    if not text.startswith("---\n"):
        raise SystemExit("README.md has no YAML front matter")
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end])


def main():
    folder = sys.argv[1]
    configs = get_dataset_config_names(folder)
    rows, features, ids, groups = {}, {}, {}, {}
    sample, solution = None, None
    for config in configs:
        loaded = load_dataset(folder, config)
        rows[config] = {split: loaded[split].num_rows for split in loaded}
        features[config] = {split: kind(loaded[split].features) for split in loaded}
        ids[config] = sorted(i for split in loaded for i in loaded[split]["id"])
        if config == "default":
            row = loaded["train"][0]
            sample = {"id": row["id"], "bundle": row["bundle"], "keys": sorted(row.keys())}
        if config == "solutions":
            groups = {split: sorted(set(loaded[split]["group"])) for split in loaded}
            row = loaded["train"][0]
            solution = {
                "id": row["id"],
                "group": row["group"],
                "solution_bundle": row["solution_bundle"],
                "validation_keys": sorted(row["validation"]["conflicted"].keys()),
                "files": [{"path": f["path"], "has_conflict": f["has_conflict"]} for f in row["files"]],
                "markers": any("<<<<<<<" in f["conflicted"] for f in row["files"] if f["has_conflict"]),
            }
    card = front_matter(f"{folder}/README.md")
    # dataset_info is long and checked through the loaded features instead.
    card.pop("dataset_info", None)
    print(
        json.dumps(
            {
                "configs": configs,
                "rows": rows,
                "features": features,
                "ids": ids,
                "groups": groups,
                "card": card,
                "sample": sample,
                "solution": solution,
            }
        )
    )


main()
