"""Speed of ``summarize``, ``compare`` and ``cluster_bootstrap_ci`` against references timed in the same run.

References, on the same seeded arrays:

* **lower bound**: the fewest numpy passes that produce every field of the result -- means, residuals,
  dot products, ``np.bincount`` of the residuals over integer cluster codes (and of the codes, to count
  clusters and size them), the CR2 formula and its Satterthwaite df (the default), or the CR1 formula
  for ``method="cr1"``. No validation, no result object.
* **lower bound + factorize**: the same after ``pandas.factorize`` of arbitrary labels (strings, large
  sparse integers), using ``len(uniques)`` as the cluster count.
* **statsmodels**: ``OLS(y, ones).fit(cov_type="cluster")`` -- one fit for a summary; three (a, b, a-b)
  for everything ``compare`` reports.
* **bootstrap reference**: counts matrix (resamples x clusters, drawn in chunks) times cluster sums.

Targets: n = 1,000,000 in 10,000 clusters, summarize and compare within 2x of the lower bound; arbitrary
labels within 1.5x of the lower bound + factorize; n = 10,000 under 1 ms a call; the bootstrap within 2x
of its reference. Times are process CPU time (``--wall`` for wall clock), best of ``--repeat`` runs
taken alternately with the reference. Run: ``python bench/bench_core.py [--repeat 15] [--wall]``.

Issue 25 (``--scale 1e6,1e7``): ``summarize`` and ``compare`` (clustered and not; 0/1 scores and the mean of
4 runs) and ``analyze`` of a 4-model 0/1 table (every model and pair from :func:`~evalstats_core.sums.file_sums`)
and of a 2-model one against the one-pass numpy bound, at 1e6 and 1e7 rows; target 1.2x. The bound is the fewest numpy passes that
give the result's fields: the pass that says whether the scores are 0/1 (which the interval rule and the 0/1
fields read; none when the first score is neither), then for 0/1 scores the counts (ones, ones per cluster, one
dot for the questions both got right), else the mean, residuals, dots and residual sums per cluster; for
``analyze`` the runs histograms (from the smallest and largest number of runs when they are equal, two passes
over the contiguous runs table, as ours), the answered mask, the Gram matrix of the table (of two columns from two
complex dots, as ours) and each model's ones per cluster. Its t quantiles and p-values are scipy's, as ours (``scipy.special``). BLAS runs on one thread (see ``_timing.one_blas_thread``)
for both. Speed changes must leave every field as it was: ``bench/core_identity.py --against REV``. A recomputation from the kept sums (new confidence and adjustment) is
timed too (target 0.1 s).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

from _timing import best_pair as _best_pair
from _timing import one_blas_thread

one_blas_thread()  # before numpy: process CPU time must not count BLAS threads spinning after a dot

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.clustering import cluster_bootstrap_ci, summarize  # noqa: E402
from evalstats_core.comparison import compare  # noqa: E402

Z = 1.959963984540054

CLOCK = time.process_time  # CPU time of this process: other jobs on a shared machine barely move it


def forget() -> None:
    """Empty the core's process-wide cache (few-cluster quantiles per size mix): the clustered df come from the
    data, so repeats of one file would otherwise find them made."""
    from evalstats_core import cluster_means

    cluster_means._q.cache_clear()


def best_pair(fn, ref, repeat: int) -> tuple[float, float]:
    """Fastest times of ``fn`` and ``ref``, called alternately, each as on a file seen for the first time
    (:func:`forget` before every call, untimed; seconds, on ``CLOCK``)."""
    return _best_pair(fn, ref, repeat, CLOCK, fresh=forget)


def best_of(fn, repeat: int) -> float:
    """Fastest time of ``repeat`` calls after one warm-up (seconds, on ``CLOCK``)."""
    return best_pair(fn, None, repeat)[0]


def data(n: int, n_clusters: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_clusters, n)  # unsorted integer codes
    level = rng.random(n_clusters)[codes]
    a = (level + 0.5 * rng.random(n) > 0.8).astype(np.float64)
    b = (level + 0.5 * rng.random(n) > 0.85).astype(np.float64)
    return a, b, codes


# ---------------------------------------------------------------- lower bounds (no validation)


def _cr1(sums, n, c):
    return math.sqrt(c / (c - 1) * float(sums @ sums)) / n


def _cr2(sums, sizes, n):
    used = sizes > 0
    f = sizes[used] / n
    a = 1.0 / (1.0 - f)
    se = math.sqrt(float((sums[used] ** 2) @ a)) / n
    af2 = a * f * f
    return se, 1.0 / (float(af2 @ (a * (1.0 - 2.0 * f))) + float(af2.sum()) ** 2)


def _crit(df):
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.975))


def lb_ones(x):
    """The fewest passes that say whether the scores are 0/1 (the interval rule and the 0/1 fields of the
    result read it), with the count of ones (None: not 0/1): no pass when the first score is neither, else one
    or two comparisons with a count each."""
    if float(x[0]) not in (0.0, 1.0):
        return None
    k = int(np.count_nonzero(x == 1.0))
    return k if k == x.size or k + int(np.count_nonzero(x == 0.0)) == x.size else None


def _lb_summary(n, c, mean, ss, sums, sizes, method="cr2"):
    """The fields of a summary from the moments (``sums``: per-cluster residual sums, None unclustered)."""
    se_naive = math.sqrt(ss / (n * (n - 1)))
    if sums is None:
        se, q = se_naive, _crit(n - 1.0)
    elif method == "cr2":
        se, df = _cr2(sums, sizes, n)
        q = _crit(df)
    else:
        se, q = _cr1(sums, n, c), Z
    deff = (se / se_naive) ** 2
    return (n, c, mean, se, mean - q * se, mean + q * se, se_naive, deff, n / deff)


def _lb_comparison(n, c, ma, mb, ssa, ssb, ssd, cov, sums, sizes, method="cr2"):
    """The fields of a paired comparison from the moments (``sums``: the two models' per-cluster residual sums,
    None unclustered)."""
    from scipy.special import stdtr

    diff = ma - mb
    if sums is None:
        se, se_un, df = math.sqrt(max(0.0, ssd) / (n * (n - 1))), math.sqrt((ssa + ssb) / (n * (n - 1))), n - 1.0
    elif method == "cr2":
        sa, sb = sums
        se_un = math.hypot(_cr2(sa, sizes, n)[0], _cr2(sb, sizes, n)[0])
        se, df = _cr2(sa - sb, sizes, n)
    else:
        sa, sb = sums
        se_un, se, df = math.hypot(_cr1(sa, n, c), _cr1(sb, n, c)), _cr1(sa - sb, n, c), math.inf
    q = _crit(df) if math.isfinite(df) else Z
    zval = diff / se
    p = 2.0 * float(stdtr(df, -abs(zval))) if math.isfinite(df) else math.erfc(abs(zval) / math.sqrt(2.0))
    return (n, c, diff, se, diff - q * se, diff + q * se, zval, p, se_un, cov / math.sqrt(ssa * ssb))


def _lb_binary_pair(n, ka, kb, both):
    """``(ss_a, ss_b, ss_d, co-moment)`` of two 0/1 columns from their counts of ones and of both right."""
    net, disc = ka - kb, ka + kb - 2.0 * both
    return ka * (n - ka) / n, kb * (n - kb) / n, disc - net * net / n, both - ka * kb / n


def lb_summarize(s, codes, c=None, method="cr2"):
    """0/1 scores: the count of ones and the ones per cluster; else the mean, residuals, their dot and their sums
    per cluster; with the cluster sizes and the CR2 formula and its df (or CR1)."""
    n = s.size
    sizes = np.bincount(codes).astype(np.float64)
    if c is None:
        c = int(np.count_nonzero(sizes))
    k = lb_ones(s)
    if k is not None:
        mean, ss = k / n, k * (n - k) / n
        sums = np.bincount(codes, weights=s, minlength=sizes.size) - sizes * mean
    else:
        mean = float(s.mean())
        r = s - mean
        ss, sums = float(r @ r), np.bincount(codes, weights=r)
    return _lb_summary(n, c, mean, ss, sums, sizes, method)


def lb_compare(a, b, codes, c=None, method="cr2"):
    """0/1 scores: counts of ones (overall and per cluster) and one dot; else means, residuals, three dots and
    the residual sums per cluster; with the cluster sizes and the CR2 formula and its df (or CR1)."""
    n = a.size
    sizes = np.bincount(codes).astype(np.float64)
    if c is None:
        c = int(np.count_nonzero(sizes))
    ka = lb_ones(a)
    kb = None if ka is None else lb_ones(b)
    if kb is not None:
        ma, mb = ka / n, kb / n
        ssa, ssb, ssd, cov = _lb_binary_pair(n, ka, kb, float(a @ b))
        sa = np.bincount(codes, weights=a, minlength=sizes.size) - sizes * ma
        sb = np.bincount(codes, weights=b, minlength=sizes.size) - sizes * mb
    else:
        ma, mb = float(a.mean()), float(b.mean())
        ra, rb = a - ma, b - mb
        ssa, ssb, cov = float(ra @ ra), float(rb @ rb), float(ra @ rb)
        ssd = ssa + ssb - 2.0 * cov
        sa, sb = np.bincount(codes, weights=ra), np.bincount(codes, weights=rb)
    return _lb_comparison(n, c, ma, mb, ssa, ssb, ssd, cov, (sa, sb), sizes, method)


def lb_summarize_flat(s):
    """The unclustered one-pass bound: 0/1 scores from the count of ones, else mean, residuals, their dot."""
    n = s.size
    k = lb_ones(s)
    if k is not None:
        return _lb_summary(n, n, k / n, k * (n - k) / n, None, None)
    mean = float(s.mean())
    r = s - mean
    return _lb_summary(n, n, mean, float(r @ r), None, None)


def lb_compare_flat(a, b):
    """The unclustered paired bound: 0/1 scores from the counts and one dot, else two means, residuals, three
    dots (``ss_d = ss_a + ss_b - 2 cov``, no pass for d: cheaper, if less accurate, than ours)."""
    n = a.size
    ka = lb_ones(a)
    kb = None if ka is None else lb_ones(b)
    if kb is not None:
        return _lb_comparison(n, n, ka / n, kb / n, *_lb_binary_pair(n, ka, kb, float(a @ b)), None, None)
    ma, mb = float(a.mean()), float(b.mean())
    ra, rb = a - ma, b - mb
    ssa, ssb, cov = float(ra @ ra), float(rb @ rb), float(ra @ rb)
    return _lb_comparison(n, n, ma, mb, ssa, ssb, ssa + ssb - 2.0 * cov, cov, None, None)


def lb_analyze(table):
    """The bound of ``analyze``: every model's runs histogram and whether every question is answered, then,
    when the answers are known to be 0/1 one run each (as ``analyze`` knows it from the table, without a pass),
    the Gram matrix of the score table
    (every model's ones on its diagonal, every pair's questions both right off it) and each model's ones per
    cluster, from which every model's and pair's fields follow; else every model's and pair's bound above."""
    codes, m = table.cluster_codes, len(table.models)
    k = table.k
    lo = int(k.min())  # every question answered alike: each histogram follows from the smallest and largest k
    hists = ([np.bincount(k[:, j]) for j in range(m)] if lo != int(k.max()) else
             [np.bincount(np.full(1, lo), minlength=lo + 1) * k.shape[0] for _ in range(m)])
    x = table.scores
    if not (table.answered.all() and table.score_kind == "binary" and all(h.size <= 2 for h in hists)):
        cols = [x[:, j] for j in range(m)]
        out = [lb_summarize_flat(s) if codes is None else lb_summarize(s, codes) for s in cols]
        return out + [lb_compare_flat(cols[j], cols[i]) if codes is None else lb_compare(cols[j], cols[i], codes)
                      for i in range(m) for j in range(i + 1, m)]
    n = x.shape[0]
    gram = lb_gram(x)
    ones = np.diag(gram)
    sizes = sums = None
    c = n
    if codes is not None:
        sizes = np.bincount(codes).astype(np.float64)
        c = int(np.count_nonzero(sizes))
        sums = [np.bincount(codes, weights=x[:, j], minlength=sizes.size) - sizes * (ones[j] / n) for j in range(m)]
    out = [_lb_summary(n, c, ones[j] / n, ones[j] * (n - ones[j]) / n, None if sums is None else sums[j], sizes)
           for j in range(m)]
    for i in range(m):
        for j in range(i + 1, m):
            out.append(_lb_comparison(n, c, ones[j] / n, ones[i] / n, *_lb_binary_pair(n, ones[j], ones[i], gram[i, j]),
                                      None if sums is None else (sums[j], sums[i]), sizes))
    return out


def lb_gram(x):
    """``x' x``; two columns from two complex dots of the rows read as ``a + ib`` (as ours: about 6x faster here than
    the real product of a tall two-column matrix, exact for 0/1 scores)."""
    if x.shape[1] != 2:
        return x.T @ x
    z = x.view(np.complex128).ravel()
    u, v = complex(z @ z), float(np.vdot(z, z).real)
    return np.array([[(u.real + v) / 2.0, u.imag / 2.0], [u.imag / 2.0, (v - u.real) / 2.0]])


def table_of(n_rows: int, n_models: int, n_clusters: int | None, seed: int = 0):
    """A QuestionTable of ``n_rows`` answers (``n_rows / n_models`` questions, every model answers all, K = 1)."""
    from evalstats_core.data import QuestionTable

    rng = np.random.default_rng(seed)
    n_q = n_rows // n_models
    codes = None if n_clusters is None else rng.integers(0, n_clusters, n_q)
    level = rng.random(n_q) if codes is None else rng.random(n_clusters)[codes]
    scores = (level[:, None] + 0.5 * rng.random((n_q, n_models)) > np.linspace(0.8, 0.9, n_models)).astype(float)
    return QuestionTable(
        name="bench", models=tuple(f"m{j}" for j in range(n_models)), questions=np.empty(0), scores=scores,
        k=np.ones((n_q, n_models), dtype=np.int64), answered=np.ones((n_q, n_models), dtype=bool),
        cluster_codes=codes, clusters=None if codes is None else np.arange(n_clusters).astype(str),
        n_clusters=n_clusters, cluster_col=None if codes is None else "cluster", score_kind="binary")


def agree(a, b, codes) -> None:
    """Ours and the bound give the same mean, SE and (paired) SEs and correlation."""
    s, c = summarize(a, codes), compare(a, b, codes)
    lb_s = lb_summarize_flat(a) if codes is None else lb_summarize(a, codes)
    lb_c = lb_compare_flat(a, b) if codes is None else lb_compare(a, b, codes)
    got = (s.mean, s.se, s.se_naive, c.diff, c.se, c.se_unpaired, c.correlation)
    want = (lb_s[2], lb_s[3], lb_s[6], lb_c[2], lb_c[3], lb_c[8], lb_c[9])
    assert all(math.isclose(x, y, rel_tol=1e-9) for x, y in zip(got, want, strict=True)), (got, want)


def runs_of(a: np.ndarray, seed: int) -> np.ndarray:
    """Continuous scores from 0/1 ones: the mean of four runs per question, each run right with probability
    0.71 where ``a`` is 1 and 0.29 where it is 0 (the first question set to 0, so that the check for 0/1 scores
    reads the array, not just its first score). An earlier threshold (``0.75 a + 0.5 U > 0.6``) made every run
    equal ``a``, so the "4 runs" rows timed 0/1 scores a second time."""
    rng = np.random.default_rng(seed)
    x = (0.3 * a + 0.7 * rng.random((4, a.size)) > 0.5).mean(axis=0)
    x[0] = 0.0
    return x


def scale_section(rows_list: list[int], repeat: int, analyze_only: bool = False) -> None:
    """Issue 25: the core against the one-pass numpy bound at 1e6 and 1e7 rows, clustered and not (``analyze``
    with 2 and 4 models)."""
    from evalstats_core.analysis import analyze, analyze_sums
    from evalstats_core.sums import file_sums

    print("at scale (issue 25; target: within 1.2x of the one-pass numpy bound)")
    for n_rows in rows_list:
        for n_clusters in (None, 10_000):
            where = "no clusters" if n_clusters is None else f"{n_clusters:,} clusters"
            a01, b01, codes = data(n_rows, n_clusters or 10_000)
            if n_clusters is None:
                codes = None
            for kind, (a, b) in () if analyze_only else (("0/1", (a01, b01)), ("4 runs", (runs_of(a01, 1),
                                                                                            runs_of(b01, 2)))):
                agree(a, b, codes)
                if codes is None:
                    ours, ref = best_pair(lambda a=a: summarize(a), lambda a=a: lb_summarize_flat(a), repeat)
                    row(f"summarize, {n_rows:.0e} rows, {kind}, {where}", ours, ref, "bound", 1.2)
                    ours, ref = best_pair(lambda a=a, b=b: compare(a, b), lambda a=a, b=b: lb_compare_flat(a, b),
                                          repeat)
                else:
                    ours, ref = best_pair(lambda a=a, c=codes: summarize(a, c),
                                          lambda a=a, c=codes: lb_summarize(a, c), repeat)
                    row(f"summarize, {n_rows:.0e} rows, {kind}, {where}", ours, ref, "bound", 1.2)
                    ours, ref = best_pair(lambda a=a, b=b, c=codes: compare(a, b, c),
                                          lambda a=a, b=b, c=codes: lb_compare(a, b, c), repeat)
                row(f"compare, {n_rows:.0e} rows, {kind}, {where}", ours, ref, "bound", 1.2)
                del a, b
            del a01, b01, codes
            for n_models in (2, 4):
                t = table_of(n_rows, n_models, n_clusters)
                ours, ref = best_pair(lambda t=t: analyze(t), lambda t=t: lb_analyze(t), repeat)
                pairs = n_models * (n_models - 1) // 2
                row(f"analyze ({n_models} models, {pairs} pair{'s' * (pairs > 1)}), {n_rows:.0e} rows, {where}", ours,
                    ref, "bound", 1.2)
                kept = file_sums(t)
                start = time.perf_counter()
                analyze_sums(kept)  # the sums as the workbench keeps them: analysed once at the default settings
                first = time.perf_counter() - start
                start = time.perf_counter()
                analyze_sums(kept, confidence=0.9, adjust="bh")
                print(f"  {'  a new confidence and adjustment from the kept sums':<44} "
                      f"{(time.perf_counter() - start) * 1e3:9.2f} ms (wall; target <= 100 ms; the sums' first "
                      f"analysis {first * 1e3:.2f} ms)")
                del t, kept


def lb_summarize_labels(s, labels):
    import pandas as pd

    codes, uniques = pd.factorize(labels)
    return lb_summarize(s, codes, len(uniques))


def lb_compare_labels(a, b, labels):
    import pandas as pd

    codes, uniques = pd.factorize(labels)
    return lb_compare(a, b, codes, len(uniques))


def sm_summarize(s, codes):
    import statsmodels.api as sm

    return sm.OLS(s, np.ones(s.size)).fit(cov_type="cluster", cov_kwds={"groups": codes}).bse[0]


def sm_compare(a, b, codes):
    return [sm_summarize(y, codes) for y in (a, b, a - b)]


def ref_bootstrap(s, codes, n_boot, rng, rows=64):
    """Counts matrix (r x C, chunks of ``rows`` resamples) times cluster sums; percentile interval."""
    sums = np.bincount(codes, weights=s)
    sizes = np.bincount(codes).astype(np.float64)
    c = sizes.size
    means = np.empty(n_boot)
    for start in range(0, n_boot, rows):
        r = min(rows, n_boot - start)
        idx = rng.integers(0, c, size=(r, c)) + np.arange(0, r * c, c)[:, None]
        w = np.bincount(idx.ravel(), minlength=r * c).reshape(r, c)
        means[start : start + r] = (w @ sums) / (w @ sizes)
    return np.quantile(means, [0.025, 0.975])


# ---------------------------------------------------------------- report


def row(label: str, ours: float, ref: float, ref_name: str, target: float | None = None) -> None:
    ratio = ours / ref
    verdict = "" if target is None else ("  ok" if ratio <= target else f"  MISSES {target}x")
    print(
        f"  {label:<44} {ours * 1e3:9.2f} ms   {ref_name} {ref * 1e3:9.2f} ms   ratio {ratio:5.2f}{verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--clusters", type=int, default=10_000)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--wall", action="store_true", help="time wall clock instead of process CPU time")
    parser.add_argument("--scale", type=str, default="",
                        help="only the issue-25 section at these row counts, e.g. 1e6,1e7")
    parser.add_argument("--analyze-only", action="store_true", help="with --scale: only the analyze rows")
    args = parser.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter
    rep = args.repeat
    warnings.simplefilter("ignore")
    if args.scale:
        scale_section([int(float(x)) for x in args.scale.split(",")], rep, args.analyze_only)
        return

    a, b, codes = data(args.n, args.clusters)
    clock = "wall clock" if args.wall else "process CPU time"
    print(f"n = {args.n:,} questions, C = {args.clusters:,} clusters (best of {rep}, {clock})")

    # agreement check before timing
    s_ours, s_lb = summarize(a, codes), lb_summarize(a, codes)
    assert math.isclose(s_ours.se, s_lb[3], rel_tol=1e-9) and s_ours.n_clusters == s_lb[1]
    c_ours, c_lb = compare(a, b, codes), lb_compare(a, b, codes)
    assert math.isclose(c_ours.se, c_lb[3], rel_tol=1e-9) and math.isclose(
        c_ours.se_unpaired, c_lb[8], rel_tol=1e-9
    )

    print("integer cluster codes (target: within 2x of the lower bound)")
    t_s, t_lb = best_pair(lambda: summarize(a, codes), lambda: lb_summarize(a, codes), rep)
    row("summarize(a, codes)", t_s, t_lb, "lower bound", 2.0)
    t_c, t_lb = best_pair(lambda: compare(a, b, codes), lambda: lb_compare(a, b, codes), rep)
    row("compare(a, b, codes)", t_c, t_lb, "lower bound", 2.0)
    t_s1, t_lb1 = best_pair(lambda: summarize(a, codes, method="cr1"),
                            lambda: lb_summarize(a, codes, method="cr1"), rep)
    row("summarize(a, codes, method='cr1')", t_s1, t_lb1, "CR1 bound", 2.0)
    t_c1, t_lb1 = best_pair(lambda: compare(a, b, codes, method="cr1"),
                            lambda: lb_compare(a, b, codes, method="cr1"), rep)
    row("compare(a, b, codes, method='cr1')", t_c1, t_lb1, "CR1 bound", 2.0)
    print(f"  CR2 (default) costs {t_s / t_s1:.2f}x CR1 in summarize and {t_c / t_c1:.2f}x in compare")
    row("summarize(a, codes)", t_s, best_of(lambda: sm_summarize(a, codes), 3), "statsmodels")
    row("compare(a, b, codes)", t_c, best_of(lambda: sm_compare(a, b, codes), 3), "statsmodels x3")

    print("arbitrary labels (target: within 1.5x of lower bound + pandas.factorize)")
    import pandas as pd

    names = np.array([f"passage-{i:05d}" for i in range(args.clusters)], dtype=object)
    label_sets = {
        "strings (object ndarray)": names[codes],
        "strings (pandas str Series)": pd.Series(names[codes].astype(str)),
        "large sparse int64": codes * 1_000_003 + 10**12,
    }
    for name, labels in label_sets.items():
        assert math.isclose(summarize(a, labels).se, s_lb[3], rel_tol=1e-9)
        ours, ref = best_pair(
            lambda x=labels: summarize(a, x), lambda x=labels: lb_summarize_labels(a, x), rep
        )
        row(f"summarize, {name}", ours, ref, "lb+factorize", 1.5)
        ours, ref = best_pair(
            lambda x=labels: compare(a, b, x), lambda x=labels: lb_compare_labels(a, b, x), rep
        )
        row(f"compare, {name}", ours, ref, "lb+factorize", 1.5)

    print("n = 10,000 (target: under 1 ms a call)")
    sa, sb, scodes = data(10_000, 500, seed=1)
    for name, fn, ref in [
        ("summarize(a)", lambda: summarize(sa), lambda: lb_summarize(sa, scodes)),
        ("summarize(a, codes)", lambda: summarize(sa, scodes), lambda: lb_summarize(sa, scodes)),
        ("compare(a, b)", lambda: compare(sa, sb), lambda: lb_compare(sa, sb, scodes)),
        ("compare(a, b, codes)", lambda: compare(sa, sb, scodes), lambda: lb_compare(sa, sb, scodes)),
    ]:
        t, r = best_pair(lambda f=fn: [f() for _ in range(100)], lambda g=ref: [g() for _ in range(100)], rep)
        t, r = t / 100, r / 100
        verdict = "ok" if t < 1e-3 else "MISSES 1 ms"
        print(f"  {name:<44} {t * 1e6:9.1f} us   (clustered lower bound {r * 1e6:7.1f} us)  {verdict}")

    print(f"cluster bootstrap, {args.n_boot} resamples (target: within 2x of the reference)")
    t_boot, t_ref = best_pair(
        lambda: cluster_bootstrap_ci(a, codes, n_boot=args.n_boot, rng=0),
        lambda: ref_bootstrap(a, codes, args.n_boot, np.random.default_rng(0)),
        max(3, rep // 2),
    )
    row("cluster_bootstrap_ci(a, codes)", t_boot, t_ref, "reference", 2.0)


if __name__ == "__main__":
    main()
