"""Test ids a hand-written substrate config collects against the ids detection collects.

    python3 examples/compare_detection.py CONFIG_DIR WORK_DIR [MERGEFORGE] [GIT_DIRS.json]

For each CONFIG_DIR/*.toml (written before detection existed: give the configs as they
were, e.g. `git show 54cdf881:substrates/real-projects/X.toml`): the project's source
(the PyPI sdist its `source` names, else a git directory from GIT_DIRS.json {name: path}
read at HEAD, or `WORK_DIR/src/NAME` when already there), `mergeforge onboard` for the
detected config, one venv per config (its `python`, pytest 8.4.2 unless its deps name
one, its `python_deps`; a failing install goes one by one, as mergeforge's does) and
`pytest --collect-only` with each test command and env. Prints a JSON line per project
and writes WORK_DIR/compare.json: ids each side collects, the shared ones, and the share
counted per test function (parameters stripped) for suites whose parametrized ids change
from run to run.
"""
import json, os, re, shutil, subprocess, sys, tomllib
from pathlib import Path

CONFIGS = Path(sys.argv[1])
HERE = Path(sys.argv[2])
BIN = sys.argv[3] if len(sys.argv) > 3 else "mergeforge"
GIT = json.loads(Path(sys.argv[4]).read_text()) if len(sys.argv) > 4 else {}

def source(name, cfg):
    dest = HERE / "src" / name
    if dest.exists():
        return dest
    url = cfg.get("source", "")
    m = re.match(r"https://pypi.org/project/([^/]+)/([^/]+)/", url)
    if m:
        dl = HERE / "sdists"
        dl.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                        f"{m[1]}=={m[2]}", "-d", dl], check=True)
        arch = next(p for p in dl.iterdir() if p.name.lower().replace("_", "-").startswith(f"{m[1].lower()}-{m[2]}"))
        tmp = HERE / "src" / ".unpack"
        shutil.rmtree(tmp, ignore_errors=True); tmp.mkdir(parents=True)
        subprocess.run(["tar", "xzf", arch, "-C", tmp], check=True)
        (inner,) = list(tmp.iterdir())
        inner.rename(dest)
    else:
        dest.mkdir(parents=True)
        archive = subprocess.run(["git", "--git-dir", GIT[name], "archive", "HEAD"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "xf", "-", "-C", dest], input=archive, check=True)
    return dest

def venv(key, cfg):
    path = HERE / "venv" / key
    py = path / "bin" / "python"
    if py.exists():
        return py
    interp = cfg.get("python", "python3")
    subprocess.run([interp, "-m", "venv", path], check=True)
    deps = list(cfg.get("python_deps", []))
    if not any(re.match(r"pytest\s*([=<>!~]|$)", d) for d in deps):
        deps.insert(0, "pytest==8.4.2")
    r = subprocess.run([py, "-m", "pip", "install", "-q", *deps], capture_output=True, text=True)
    if r.returncode != 0:  # as mergeforge does: one by one, leaving out what fails
        for d in deps:
            subprocess.run([py, "-m", "pip", "install", "-q", d], capture_output=True)
    return py

def collect(src, cfg, py):
    cmd = list(cfg["test_command"])
    assert cmd[:3] == ["python", "-m", "pytest"], cmd
    env = dict(os.environ, **cfg.get("env", {}))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    r = subprocess.run([py, *cmd[1:], "--collect-only"], cwd=src, env=env, capture_output=True, text=True)
    ids = {l.strip() for l in r.stdout.splitlines() if "::" in l and not l.startswith(("ERROR", "FAILED"))}
    if not ids:  # the project's addopts say --verbose, which cancels the command's -q: a tree, not ids
        r = subprocess.run([py, *cmd[1:], "--collect-only", "-q"], cwd=src, env=env, capture_output=True, text=True)
        ids = {l.strip() for l in r.stdout.splitlines() if "::" in l and not l.startswith(("ERROR", "FAILED"))}
    errors = [l for l in r.stdout.splitlines() if l.startswith("ERROR")]
    return ids, errors

rows = []
HERE.mkdir(parents=True, exist_ok=True)
for conf in sorted(CONFIGS.glob("*.toml")):
    name = conf.stem
    cfg = tomllib.loads(conf.read_text())
    src = source(name, cfg)
    onboard = subprocess.run([BIN, "onboard", src], capture_output=True, text=True)
    if onboard.returncode != 0:
        rows.append({"project": name, "error": onboard.stderr.strip()}); continue
    det = tomllib.loads(onboard.stdout)
    given, gerr = collect(src, cfg, venv(f"{name}-config", cfg))
    found, derr = collect(src, det, venv(f"{name}-detected", det))
    both = given & found
    from collections import Counter
    strip = lambda ids: Counter(re.sub(r"\[.*\]$", "[]", i) for i in ids)
    loose = sum((strip(given) & strip(found)).values())
    rows.append({"project": name, "config": len(given), "detected": len(found), "both": len(both),
                 "share": round(100 * len(both) / max(1, len(given)), 1),
                 "share_unparametrized": round(100 * loose / max(1, len(given)), 1), "config_errors": gerr, "detected_errors": derr,
                 "missing": sorted(given - found)[:8], "extra": len(found - given),
                 "config_cmd": cfg["test_command"][6:], "detected_cmd": det["test_command"][6:],
                 "detected_python": det.get("python", "default"), "detected_deps": det.get("python_deps", [])})
    print(json.dumps(rows[-1])[:600], flush=True)
(HERE / "compare.json").write_text(json.dumps(rows, indent=1))
