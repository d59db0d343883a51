"""The reading-parity cases: every fixture and example through the CLI's JSON (see test_reading_parity.py)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"


def cases() -> dict[str, list[str]]:
    """Case name -> the analyze arguments (paths relative to the repository root)."""
    out: dict[str, list[str]] = {}
    for p in sorted((ROOT / "examples").glob("*.csv")):
        out[p.name] = [str(p.relative_to(ROOT))]
    for p in sorted((FIX / "cr2_designs").glob("*.csv")):
        out[f"cr2/{p.name}"] = [str(p.relative_to(ROOT))]
    insp = FIX / "inspect"
    for p in sorted(insp.glob("model-a*")):
        out[f"inspect/{p.name}"] = [str(p.relative_to(ROOT))]
    out["inspect/a+b"] = [str((insp / "model-a_zstd.eval").relative_to(ROOT)),
                          str((insp / "model-b_zstd.eval").relative_to(ROOT))]
    out["inspect/a+b rating"] = [*out["inspect/a+b"], "--metric", "rating"]
    for p in sorted((insp / "upstream").glob("*popularity*")):
        out[f"inspect/upstream/{p.name}"] = [str(p.relative_to(ROOT))]
    lm = FIX / "lm_eval"
    group = sorted(str(p.relative_to(ROOT)) for p in lm.glob("*/samples_quiz_[ah]*.jsonl"))
    out["lm_eval/group"] = group
    for p in sorted(lm.glob("org__model-a/samples_*.jsonl")):
        out[f"lm_eval/{p.name}"] = [str(p.relative_to(ROOT))]
    gen = sorted(str(p.relative_to(ROOT)) for p in lm.glob("*/samples_quiz_gen*.jsonl"))
    out["lm_eval/gen strict"] = [*gen, "--filter", "strict-match"]
    out["promptfoo"] = [str((FIX / "promptfoo" / "results.json").relative_to(ROOT))]
    # clusters too few to be read unless chosen (issue 46): chosen, so each case reads what it read before
    for name, args in out.items():
        chosen = ("cluster" if name in ("cr2/tiny_3.csv", "cr2/two_clusters.csv") else
                  "subject" if name.startswith("inspect/") and "upstream" not in name else
                  "task" if name == "lm_eval/group" else None)
        if chosen is not None:
            args += ["--cluster-col", chosen]
    return out


def run(args: list[str]) -> tuple[int, dict | str]:
    """Exit code and the parsed JSON (or stderr) of ``analyze ARGS -f json``, in-process, from the root."""
    import os

    from evalstats_core.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["analyze", *args, "--format", "json"])
    finally:
        os.chdir(cwd)
    return code, json.loads(out.getvalue()) if code == 0 else err.getvalue()


def numbers(doc, path: str = "") -> dict[str, object]:
    """Every number and model name of a JSON report, by its path (settings and notes left out)."""
    flat: dict[str, object] = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in ("settings", "notes", "command", "warnings", "reading", "file", "format", "file_type"):
                continue
            flat.update(numbers(v, f"{path}.{k}"))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            flat.update(numbers(v, f"{path}[{i}]"))
    elif isinstance(doc, bool) or doc is None or isinstance(doc, int | float):
        flat[path] = doc
    elif isinstance(doc, str) and "model" in path.rsplit(".", 1)[-1]:
        flat[path] = doc
    return flat


if __name__ == "__main__":
    base = {name: (lambda r: {"code": r[0], "numbers": numbers(r[1]) if r[0] == 0 else None})(run(a))
            for name, a in cases().items()}
    (FIX / "reading_baseline.json").write_text(json.dumps(base, indent=1, sort_keys=True) + "\n")
    print(len(base), "cases;", sum(v["code"] == 0 for v in base.values()), "exit 0")
