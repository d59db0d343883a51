"""Every field of ``analyze``, ``analyze_sums``, ``summarize`` and ``compare`` identical to another revision's.

A speed change to the core must not move a number: this runs the same seeded cases through this tree and
through the core of a git revision (``git archive REV evalstats_core``, in a temporary folder) and compares the
``repr`` of every result (floats to the last bit, nan as nan, every warning and label).

Cases: tables of 0/1 and continuous scores, one or several runs per question, every question answered or
some left out, with 1, 2, a few or many clusters (some empty), 2-5 models, 8 to 40,000 questions, and the
bundled example files; settings drawn per table from confidence, adjustment, method, interval, paired,
clusters used and baseline; and the array functions on 0/1 and continuous scores, clustered (integer and
string labels) and not, paired and not.

Run: ``python bench/core_identity.py --against main`` (or any commit); exit 1 and the first differences when
a field moved. ``--dump FILE`` writes this tree's reprs only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tables(np, QuestionTable):
    """Seeded question tables covering the branches of ``file_sums`` and the estimators."""
    rng = np.random.default_rng(20261127)
    out = []
    for case in range(60):
        n_q = int(rng.choice([8, 12, 40, 150, 600, 3000, 40000]))
        n_m = int(rng.integers(2, 6))
        n_g = [None, 1, 2, 3, 7, 30, 400][case % 7]
        runs = int(rng.choice([1, 1, 1, 3]))
        kind = ["binary", "binary", "continuous"][case % 3]
        codes = None if n_g is None else rng.integers(0, n_g, n_q)
        if codes is not None and case % 5 == 0 and n_g > 2:
            codes[codes == 1] = 0  # an empty cluster bin
        level = rng.random(n_q if codes is None else n_g)
        base = level if codes is None else level[codes]
        acc = rng.uniform(0.3, 0.995, n_m)
        if kind == "binary":
            draws = (rng.random((runs, n_q, n_m)) < (0.4 * base[:, None] + 0.6 * acc)).astype(float)
            scores = draws.mean(axis=0)
        else:
            scores = np.round(base[:, None] * 5 + rng.normal(0, 1, (n_q, n_m)) + acc * 3, 2)
        if case % 11 == 3:
            scores[:, 1] = scores[:, 0]  # two identical models
        if case % 13 == 5:
            scores[:, 0] = 1.0  # a model right everywhere
        k = np.full((n_q, n_m), runs, dtype=np.int64)
        answered = np.ones((n_q, n_m), dtype=bool)
        if case % 4 == 1:  # some questions left out
            answered = rng.random((n_q, n_m)) > 0.15
            answered[:2] = True
            scores = np.where(answered, scores, np.nan)
            k = np.where(answered, k, 0)
        if case % 9 == 7:  # uneven runs
            k = np.where(answered, rng.integers(1, 4, (n_q, n_m)), 0)
        n_clusters = None if codes is None else int(codes.max()) + 1
        out.append(QuestionTable(
            name=f"case{case}", models=tuple(f"m{j}" for j in range(n_m)), questions=np.arange(n_q).astype(str),
            scores=scores, k=k, answered=answered, cluster_codes=codes,
            clusters=None if codes is None else np.array([f"g{i}" for i in range(n_clusters)]),
            n_clusters=n_clusters, cluster_col=None if codes is None else "topic",
            score_kind="binary" if kind == "binary" and runs == 1 and case % 9 != 7 else
            ("binary" if kind == "binary" else "continuous")))
    return out


SETTINGS = dict(confidence=(0.95, 0.9, 0.99), adjust=("holm", "bh", "none"), method=("cr2", "cr1"),
                interval=("auto", "normal", "wilson", "clopper-pearson", "bayes"), paired=(True, False),
                use_clusters=(True, False))


def dump() -> dict[str, str]:
    """``{case: repr(result) or the error}`` of this interpreter's ``evalstats_core``."""
    import numpy as np

    from evalstats_core.analysis import analyze, analyze_sums
    from evalstats_core.clustering import summarize
    from evalstats_core.comparison import compare
    from evalstats_core.data import QuestionTable, load, question_scores
    from evalstats_core.examples import EXAMPLES, path
    from evalstats_core.sums import file_sums

    warnings.simplefilter("ignore")
    out: dict[str, str] = {}

    def run(key, fn):
        try:
            out[key] = repr(fn())
        except Exception as exc:  # an error is a result too: the same message
            out[key] = f"{type(exc).__name__}: {exc}"

    tables = _tables(np, QuestionTable)
    tables += [question_scores(load(path(name))) for name in sorted(EXAMPLES)]
    rng = np.random.default_rng(7)
    names, choices = list(SETTINGS), list(itertools.product(*SETTINGS.values()))
    for t in tables:
        run(f"{t.name}/default", lambda t=t: analyze(t))
        kept = file_sums(t)
        for i in rng.choice(len(choices), 24, replace=False):
            kw = dict(zip(names, choices[int(i)], strict=True))
            if rng.random() < 0.3:
                kw["baseline"] = t.models[-1]
            run(f"{t.name}/{sorted(kw.items())}", lambda t=t, kw=kw: analyze(t, **kw))
            run(f"{t.name}/sums/{sorted(kw.items())}", lambda kw=kw, kept=kept: analyze_sums(kept, **kw))
    for n, g, kind in itertools.product((5, 30, 800, 20000, 300000), (None, 2, 9, 60, 1000), ("01", "cont", "ceil")):
        a = (rng.random(n) < 0.7).astype(float)
        b = np.where(rng.random(n) < 0.8, a, 1.0 - a)
        if kind == "cont":
            a, b = a + rng.normal(0, 0.3, n), b + rng.normal(0, 0.3, n)
        if kind == "ceil":
            a, b = np.ones(n), np.where(rng.random(n) < 0.995, 1.0, 0.0)
        labels = None if g is None else rng.integers(0, g, n)
        for lab in ([labels] if labels is None else [labels, np.array([f"c{x}" for x in labels], dtype=object)]):
            tag = f"{n}/{g}/{kind}/{'str' if lab is not None and lab.dtype == object else 'int'}"
            for method, interval, paired in itertools.product(("cr2", "cr1"), ("auto", "normal"), (True, False)):
                run(f"summarize/{tag}/{method}/{interval}", lambda a=a, lab=lab, m=method, i=interval:
                    summarize(a, lab, method=m, interval=i))
                run(f"compare/{tag}/{method}/{interval}/{paired}", lambda a=a, b=b, lab=lab, m=method, i=interval,
                    p=paired: compare(a, b, lab, method=m, interval=i, paired=p))
            run(f"compare/{tag}/0.9", lambda a=a, b=b, lab=lab: compare(a, b, lab, confidence=0.9))
    return out


_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def _largest_move(old: dict, new: dict, moved: list) -> str:
    """The largest relative change of a number among the moved cases, per field (when only numbers moved)."""
    worst: dict[str, tuple] = {}
    for k in moved:
        a, b = old.get(k) or "", new.get(k) or ""
        if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
            return f"{k}: more than numbers moved"
        for mx, my in zip(_NUMBER.finditer(a), _NUMBER.finditer(b), strict=True):
            x, y = float(mx.group()), float(my.group())
            rel = abs(x - y) / abs(x) if x else abs(y)
            field = a[:mx.start()].rsplit("(", 1)[-1].rsplit(", ", 1)[-1].rstrip("=")
            if rel > worst.get(field, (0.0,))[0]:
                worst[field] = (rel, k, x, y)
    top = sorted(worst.items(), key=lambda kv: -kv[1][0])[:6]
    return "largest relative change per field:\n" + "\n".join(
        f"  {f}: {w[0]:.3g} ({w[1]}: {w[2]!r} -> {w[3]!r})" for f, w in top if w[0] > 0)


def dumps_against(rev: str, script: str, root_var: str) -> tuple[dict, dict]:
    """``script --dump`` run on the core of git revision ``rev`` (``git archive`` into a temporary folder) and on
    this tree, each in a child process whose ``root_var`` and ``PYTHONPATH`` name its tree: the two dumps, old first."""
    with tempfile.TemporaryDirectory() as tmp:
        old_root = Path(tmp) / "old"
        old_root.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "evalstats_core", "examples"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old_root)], input=archive, check=True)
        results = []
        for label, root in (("old", old_root), ("new", ROOT)):
            target = Path(tmp) / f"{label}.json"
            env = dict(os.environ, **{root_var: str(root)}, PYTHONPATH=str(root))
            subprocess.run([sys.executable, script, "--dump", str(target)], check=True, env=env, cwd=tmp)
            results.append(json.loads(target.read_text()))
    return results[0], results[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="git revision whose evalstats_core is the reference")
    parser.add_argument("--dump", help="write this tree's reprs to this JSON file and stop")
    args = parser.parse_args()
    if args.dump:
        sys.path.insert(0, os.environ.get("CORE_IDENTITY_ROOT", str(ROOT)))
        Path(args.dump).write_text(json.dumps(dump()))
        return 0
    if not args.against:
        parser.error("give --against REV (or --dump FILE)")
    old, new = dumps_against(args.against, __file__, "CORE_IDENTITY_ROOT")
    moved = [k for k in old if old[k] != new.get(k)] + [k for k in new if k not in old]
    print(f"{len(old)} cases against {args.against}: {len(moved)} differ")
    if moved:
        print(_largest_move(old, new, moved))
    for k in moved[:5]:
        print(f"- {k}\n  old: {old.get(k)}\n  new: {new.get(k)}")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
