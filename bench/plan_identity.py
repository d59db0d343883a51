"""Every field of ``plan_pair`` (and the planners under it) identical to another revision's, and its printed words.

The sibling of ``core_identity.py`` for the plan (which that one does not cover): the same seeded question tables
(``core_identity._tables``, 0/1 and continuous scores, one or several runs, 1 to 400 clusters) and the bundled
examples (with their answers, for the resampled plans), each planned for a few pairs, effects, levels and analysis
settings; the bench file of the workbench (3 models, clusters of 20) at 1e4 and 1e5 rows; and the planners' own
functions (``calibrated_power``, ``omega2_spread``, ``_between_sum_cdf``) on SWE-like and many-cluster sizes.
It compares the ``repr`` of every result (floats to the last bit) and, separately, what a reader sees: the plan's
sentences (``describe``) and its rounded numbers as the workbench prints them.

Run: ``python bench/plan_identity.py --against main``; exit 1 when a printed number moved (a last-bit move of a
float is listed, with the largest relative change per field, but is not a failure).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


def _printed(plan) -> str:
    """What the workbench prints of a plan (its metrics, sentences and the estimates' caption)."""
    from evalstats_core.planning import describe

    words = describe(plan, percent=True)
    k = "n/a" if plan.k_needed is None else f"{math.ceil(plan.k_needed)}"
    return (f"{100 * plan.mde:.1f} | {math.ceil(plan.n_needed):,} | {k} | {words} | {plan.omega2:.4g} "
            f"{plan.sigma2_model:.4g} {plan.sigma2_baseline:.4g} {plan.note}")


def _ten(value) -> str:
    """A number (or arrays of them) to 10 significant digits: what "printed" means for the planners' own functions."""
    import numpy as np

    if isinstance(value, tuple):
        return " ".join(f"{x:.10g}" for part in value for x in np.ravel(part))
    return f"{value:.10g}"


def dump() -> dict[str, list[str]]:
    """``{case: [repr, printed]}`` of this interpreter's ``evalstats_core``."""
    import numpy as np
    from core_identity import _tables

    from evalstats_core.analysis import analyze
    from evalstats_core.data import QuestionTable, load, question_scores
    from evalstats_core.examples import EXAMPLES, path
    from evalstats_core.pilot import _between_sum_cdf
    from evalstats_core.plan_spread import calibrated_power, omega2_spread
    from evalstats_core.planning import plan_pair

    warnings.simplefilter("ignore")
    out: dict[str, list[str]] = {}

    def run(key, fn, printed=None):
        try:
            got = fn()
            out[key] = [repr(got), printed(got) if printed else repr(got)]
        except Exception as exc:  # an error is a result too: the same message
            out[key] = [f"{type(exc).__name__}: {exc}"] * 2

    rng = np.random.default_rng(11)
    cases = [(None, t) for t in _tables(np, QuestionTable)]
    for name in sorted(EXAMPLES):
        ds = load(path(name))
        cases.append((ds, question_scores(ds)))
    for rows in (10_000, 100_000):  # bench_workbench_reruns.parquet's table (3 models, clusters of 20), built here:
        nq = rows // 3  # that module puts its own tree first on the path
        cols = {"question": np.repeat(np.arange(nq), 3).astype(str), "model": np.tile(np.array(["A", "B", "C"]), nq),
                "score": (np.random.default_rng(0).random(nq * 3) < 0.6).astype(float),
                "cluster": np.repeat(np.arange(nq) // 20, 3).astype(str)}
        ds = load("".join(["question,model,score,cluster\n"] + [f"{q},{m},{s:g},{c}\n" for q, m, s, c in
                                                                 zip(*cols.values(), strict=True)]).encode())
        cases.append((ds, question_scores(ds)))
    for ds, t in cases:
        if len(t.models) < 2:
            continue
        for _ in range(3):
            method, interval = str(rng.choice(["cr2", "cr1"])), str(rng.choice(["auto", "normal", "wilson"]))
            i, j = (int(x) for x in rng.choice(len(t.models), 2, replace=False))
            delta, alpha, power = float(rng.choice([0.01, 0.03, 0.1])), float(rng.choice([0.05, 0.01])), 0.8
            key = f"{t.name}/{method}/{interval}/{i}-{j}/{delta}/{alpha}"
            try:
                a = analyze(t, method=method, interval=interval)
            except Exception as exc:  # noqa: BLE001
                out[key] = [f"analysis: {type(exc).__name__}: {exc}"] * 2
                continue
            run(key, lambda ds=ds, t=t, a=a, i=i, j=j, d=delta, al=alpha, p=power: plan_pair(
                ds, t, a, t.models[i], t.models[j], delta=d, alpha=al, power=p), _printed)
    swe = np.array([231, 47, 44, 23, 22, 21, 19, 17, 16, 15, 13, 12] * 3, dtype=float)
    many = np.repeat([2.0, 5.0, 20.0, 21.0], [3000, 2000, 500, 7])
    for name, sizes in (("swe", swe), ("many", many), ("equal", np.full(40, 20.0)), ("ten", np.arange(4.0, 46, 4.5))):
        for vw, vc in ((0.2, 0.0), (0.2, 0.004), (0.16, 0.02)):
            run(f"calibrated/{name}/{vw}/{vc}", lambda s=sizes, vw=vw, vc=vc: calibrated_power(
                0.05, s, vw, vc, df_per_question=0.05), _ten)
            for x in (0.5, 1.0, 3.0) if sizes.size < 100 else (sizes.size * 0.2, sizes.size * 0.25):
                run(f"cdf/{name}/{vw}/{vc}/{x}", lambda s=sizes, vw=vw, vc=vc, x=x: _between_sum_cdf(x, s, vc, vw), _ten)
        codes = np.repeat(np.arange(sizes.size), sizes.astype(int))
        diffs = rng.normal(0, 0.4, codes.size) + rng.normal(0, 0.1, sizes.size)[codes]
        run(f"spread/{name}", lambda d=diffs, c=codes: omega2_spread(d, c, 0.01), _ten)
    return out


def _moves(old: dict, new: dict, keys: list[str]) -> str:
    """The largest relative change of a number among ``keys`` (reprs), per field."""
    from core_identity import _largest_move

    return _largest_move({k: old[k][0] for k in keys}, {k: new[k][0] for k in keys}, keys)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="git revision whose evalstats_core is the reference")
    parser.add_argument("--dump", help="write this tree's results to this JSON file and stop")
    args = parser.parse_args()
    if args.dump:
        sys.path.insert(0, os.environ.get("PLAN_IDENTITY_ROOT", str(ROOT)))
        Path(args.dump).write_text(json.dumps(dump()))
        return 0
    if not args.against:
        parser.error("give --against REV (or --dump FILE)")
    from core_identity import dumps_against

    old, new = dumps_against(args.against, __file__, "PLAN_IDENTITY_ROOT")
    bits = [k for k in old if old[k][0] != new.get(k, [None])[0]] + [k for k in new if k not in old]
    shown = [k for k in old if old[k][1] != new.get(k, [None, None])[1]] + [k for k in new if k not in old]
    print(f"{len(old)} cases against {args.against}: {len(bits)} differ in some bit, {len(shown)} in what is printed")
    if bits:
        print(_moves(old, new, [k for k in bits if k in old and k in new]))
    for k in shown[:5]:
        print(f"- {k}\n  old: {old.get(k, [None, None])[1]}\n  new: {new.get(k, [None, None])[1]}")
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
