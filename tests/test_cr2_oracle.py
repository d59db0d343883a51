"""CR2 + Satterthwaite against independent oracles (issue 9).

1. R's clubSandwich, through committed fixtures (always): ``tests/fixtures/clubsandwich.json`` holds
   ``coef_test(lm(y ~ 1), vcov = "CR2", cluster = g, test = "Satterthwaite")`` for every model and
   every paired difference of the two few-cluster example files and of small synthetic designs
   (``tests/fixtures/cr2_designs/``). Regenerate with ``python scripts/clubsandwich_oracle.py``.
2. The CLI's JSON on ``examples/coding_12_repos.csv`` (12 clusters) and ``examples/chat_5_sources.csv``
   (5 clusters), default settings, against the same fixtures.
3. R live: rerun ``scripts/clubsandwich_oracle.R`` into a temporary file where ``Rscript`` and
   clubSandwich are installed (skipped otherwise, but a failure when ``CI=true`` or
   ``EVALSTATS_REQUIRE_R=1``: CI installs R).
4. A closed form independent of both: CR2 and the Bell-McCaffrey df from explicit matrices.
5. Without clusters the default is the t-test: scipy's ``ttest_1samp``, ``ttest_rel``, ``ttest_ind``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalstats_core import compare, summarize
from evalstats_core.errors import EvalStatsWarning

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "clubsandwich.json"
DESIGNS = ROOT / "tests" / "fixtures" / "cr2_designs"
EXAMPLES = ("examples/coding_12_repos.csv", "examples/chat_5_sources.csv")

# Measured agreement with clubSandwich 0.5.8 is ~1e-14 (se, df) and ~1e-13 (p); 1e-10 leaves room for
# another platform's libm and R build while staying far tighter than the 1e-6.
REL = 1e-10
# The mean (and a paired difference, which can be exactly 0) from R's QR fit differs from a plain sum
# by rounding only: compared absolutely.
ABS_MEAN = 1e-12

FIX = json.loads(FIXTURES.read_text(encoding="utf-8"))
DATASETS = {d["name"]: d for d in FIX["datasets"]}


def _read(path: str) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The wide file as the R script reads it: scores by model, and the cluster labels (or None)."""
    frame = pd.read_csv(ROOT / path, dtype={"question": str, "cluster": str})
    clusters = frame["cluster"].to_numpy() if "cluster" in frame else None
    return frame.drop(columns=[c for c in ("question", "cluster") if c in frame]), clusters


def _close(ours: float, theirs: float, rel: float = REL) -> bool:
    return ours == pytest.approx(theirs, rel=rel, abs=0.0)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)  # few-cluster cautions are expected here
        return fn(*args, **kwargs)


# ------------------------------------------------------------------------------------------------
# Fixtures are current


def test_fixtures_cover_every_design_and_example():
    """Every design CSV and both few-cluster examples have fixture values (none left stale or missing)."""
    paths = {d["path"] for d in FIX["datasets"]}
    expected = set(EXAMPLES) | {str(p.relative_to(ROOT)) for p in DESIGNS.glob("*.csv")}
    assert paths == expected
    assert DATASETS["coding_12_repos"]["n_clusters"] == 12 and len(DATASETS["coding_12_repos"]["models"]) == 15
    assert DATASETS["chat_5_sources"]["n_clusters"] == 5 and len(DATASETS["chat_5_sources"]["models"]) == 6


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_fixture_inputs_unchanged(name):
    """The CSV a fixture was computed from is byte-identical today (else: regenerate the fixtures)."""
    ds = DATASETS[name]
    digest = hashlib.md5((ROOT / ds["path"]).read_bytes()).hexdigest()
    assert digest == ds["md5"], f"{ds['path']} changed; run python scripts/clubsandwich_oracle.py"


# ------------------------------------------------------------------------------------------------
# 1. summarize / compare against clubSandwich


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_summarize_cr2_equals_clubsandwich(name):
    """Every model's CR2 SE and Satterthwaite df equal coef_test's SE and df_Satt."""
    ds = DATASETS[name]
    scores, clusters = _read(ds["path"])
    for m in ds["models"]:
        s = _quiet(summarize, scores[m["model"]].to_numpy(float), clusters, method="cr2", interval="normal")
        assert s.method == "cr2"
        assert s.mean == pytest.approx(m["mean"], abs=ABS_MEAN), (name, m["model"], "mean")
        assert _close(s.se, m["se"]), (name, m["model"], "se", s.se, m["se"])
        assert _close(s.df, m["df"]), (name, m["model"], "df", s.df, m["df"])
        crit = stats.t.ppf(0.975, m["df"])
        assert _close(s.ci_high - s.ci_low, 2 * crit * m["se"]), (name, m["model"], "ci width")


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_compare_cr2_equals_clubsandwich(name):
    """Every paired difference's CR2 SE, df and p equal coef_test on y = a - b."""
    ds = DATASETS[name]
    scores, clusters = _read(ds["path"])
    for p in ds["pairs"]:
        a, b = scores[p["model"]].to_numpy(float), scores[p["baseline"]].to_numpy(float)
        c = _quiet(compare, a, b, clusters, method="cr2", interval="normal")
        where = (name, p["model"], p["baseline"])
        assert c.method == "cr2"
        assert c.diff == pytest.approx(p["mean"], abs=ABS_MEAN), (*where, "diff")
        assert _close(c.se, p["se"]), (*where, "se", c.se, p["se"])
        assert _close(c.df, p["df"]), (*where, "df", c.df, p["df"])
        assert _close(c.p_value, p["p"]), (*where, "p_value", c.p_value, p["p"])
        assert c.z == pytest.approx(p["t"], rel=REL, abs=ABS_MEAN / p["se"]), (*where, "t")


# ------------------------------------------------------------------------------------------------
# 2. The CLI's JSON on the example files


def _cli_json(path: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", path, "--format", "json",
                          "--interval", "normal"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("path", EXAMPLES)
def test_cli_json_equals_clubsandwich(path):
    """CLI JSON (every pair, CR2, the raw t intervals): each model's se/df and each comparison's se/df/p equal R's."""
    ds = next(d for d in FIX["datasets"] if d["path"] == path)
    got = _cli_json(path)
    assert got["settings"]["cluster_se"] == "cr2"
    assert got["settings"]["clustered"] is True and got["settings"]["n_clusters"] == ds["n_clusters"]
    models = {m["model"]: m for m in got["models"]}
    assert list(models) == [m["model"] for m in ds["models"]]
    for m in ds["models"]:
        ours = models[m["model"]]
        assert ours["method"] == "cr2" and ours["n_clusters"] == ds["n_clusters"]
        assert ours["mean"] == pytest.approx(m["mean"], abs=ABS_MEAN)
        assert _close(ours["se"], m["se"]), (path, m["model"], "se", ours["se"], m["se"])
        assert _close(ours["df"], m["df"]), (path, m["model"], "df", ours["df"], m["df"])
    pairs = {(p["model"], p["baseline"]): p for p in got["comparisons"]}
    assert list(pairs) == [(p["model"], p["baseline"]) for p in ds["pairs"]]  # every pair, same order
    for p in ds["pairs"]:
        ours = pairs[p["model"], p["baseline"]]
        where = (path, p["model"], p["baseline"])
        assert ours["method"] == "cr2"
        assert ours["diff"] == pytest.approx(p["mean"], abs=ABS_MEAN), (*where, "diff")
        assert _close(ours["se"], p["se"]), (*where, "se", ours["se"], p["se"])
        assert _close(ours["df"], p["df"]), (*where, "df", ours["df"], p["df"])
        assert _close(ours["p_value"], p["p"]), (*where, "p_value", ours["p_value"], p["p"])


# ------------------------------------------------------------------------------------------------
# 3. Live R


def _r_status() -> str | None:
    """None when Rscript with clubSandwich runs here, else the reason it does not."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return "Rscript is not installed"
    probe = subprocess.run([rscript, "-e", "suppressPackageStartupMessages(library(clubSandwich))"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"R package clubSandwich is not installed (apt-get install r-cran-clubsandwich): {probe.stderr.strip()}"
    return None


def _require_r() -> bool:
    return os.environ.get("CI", "").lower() == "true" or os.environ.get("EVALSTATS_REQUIRE_R") == "1"


@pytest.fixture(scope="module")
def live_r(tmp_path_factory) -> dict:
    reason = _r_status()
    if reason is not None:
        if _require_r():
            pytest.fail(f"CI must run the live clubSandwich comparison, but {reason}")
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("clubsandwich") / "clubsandwich.json"
    subprocess.run(["Rscript", str(ROOT / "scripts" / "clubsandwich_oracle.R"), "--out", str(out)],
                   cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.read_text(encoding="utf-8"))


def test_live_r_reproduces_committed_fixtures(live_r):
    """Rerunning the R script today gives the committed fixture values (same datasets, files, numbers)."""
    fresh = {d["name"]: d for d in live_r["datasets"]}
    assert sorted(fresh) == sorted(DATASETS)
    for name, ds in DATASETS.items():
        new = fresh[name]
        assert (new["path"], new["md5"], new["n"], new["n_clusters"]) == (ds["path"], ds["md5"], ds["n"], ds["n_clusters"])
        for kind in ("models", "pairs"):
            assert len(new[kind]) == len(ds[kind])
            for old_row, new_row in zip(ds[kind], new[kind], strict=True):
                assert old_row["model"] == new_row["model"] and old_row.get("baseline") == new_row.get("baseline")
                for key in ("se", "df", "p", "t"):
                    assert _close(new_row[key], old_row[key]), (name, kind, old_row["model"], key)
                assert new_row["mean"] == pytest.approx(old_row["mean"], abs=ABS_MEAN)


def test_live_r_equals_ours(live_r):
    """Our summarize/compare equal the freshly computed clubSandwich values on every dataset."""
    for ds in live_r["datasets"]:
        scores, clusters = _read(ds["path"])
        for m in ds["models"]:
            s = _quiet(summarize, scores[m["model"]].to_numpy(float), clusters, interval="normal")
            assert _close(s.se, m["se"]) and _close(s.df, m["df"]), (ds["name"], m["model"])
        for p in ds["pairs"]:
            c = _quiet(compare, scores[p["model"]].to_numpy(float), scores[p["baseline"]].to_numpy(float), clusters,
                       interval="normal")
            assert _close(c.se, p["se"]) and _close(c.df, p["df"]) and _close(c.p_value, p["p"]), (
                ds["name"], p["model"], p["baseline"])


# ------------------------------------------------------------------------------------------------
# 4. Closed form with explicit matrices (independent of clubSandwich and of our kernel)


def _inv_sqrt_psd(m: np.ndarray) -> np.ndarray:
    """Symmetric ``m^(-1/2)`` via eigh (the CR2 adjustment; m = I - H_gg is positive definite here)."""
    vals, vecs = np.linalg.eigh(m)
    return (vecs / np.sqrt(vals)) @ vecs.T


def cr2_explicit(y: np.ndarray, groups: np.ndarray, x: np.ndarray | None = None,
                 c: np.ndarray | None = None) -> tuple[float, float]:
    """CR2 SE of ``c' beta`` and its Bell-McCaffrey / Satterthwaite df, by the textbook matrices.

    OLS ``y = X beta + e`` with ``M = (X'X)^-1``, hat matrix ``H = X M X'``, residuals ``e = (I - H) y``.
    For cluster ``g`` (rows ``I_g``): ``A_g = (I - H_gg)^(-1/2)`` (symmetric root), and

        V_CR2 = M ( sum_g X_g' A_g e_g e_g' A_g X_g ) M              (Bell & McCaffrey 2002, Eq. 8;
                                                                   Pustejovsky & Tipton 2018, Eq. 6)

    Under the working model ``y ~ N(X beta, sigma^2 I)`` the residuals are ``e = (I - H) eps``, so
    ``c' V_CR2 c = sum_g (p_g' eps)^2`` with the n-vectors

        p_g = (I - H)[I_g, :]' A_g X_g M c,

    a quadratic form in normal variables with mean ``sigma^2 sum_g p_g'p_g`` and variance
    ``2 sigma^4 sum_g sum_h (p_g'p_h)^2``. Matching a scaled chi-square (Satterthwaite) gives

        df = ( sum_g p_g'p_g )^2 / sum_g sum_h (p_g'p_h)^2           (Bell & McCaffrey 2002, Sec. 4;
                                                                   Pustejovsky & Tipton 2018, Eq. 11)
    """
    y = np.asarray(y, dtype=float)
    n = y.size
    x = np.ones((n, 1)) if x is None else np.asarray(x, dtype=float)  # (n, k)
    c = np.eye(x.shape[1])[0] if c is None else np.asarray(c, dtype=float)  # (k,)
    m = np.linalg.inv(x.T @ x)  # (k, k)
    h = x @ m @ x.T  # (n, n)
    i_h = np.eye(n) - h
    e = i_h @ y  # (n,)
    meat = np.zeros((x.shape[1], x.shape[1]))
    p = []
    for label in dict.fromkeys(groups.tolist()):
        idx = np.flatnonzero(groups == label)
        a_g = _inv_sqrt_psd(np.eye(idx.size) - h[np.ix_(idx, idx)])  # (n_g, n_g)
        u = x[idx].T @ a_g @ e[idx]  # (k,)
        meat += np.outer(u, u)
        p.append(i_h[idx].T @ a_g @ x[idx] @ m @ c)  # (n,)
    v = m @ meat @ m
    pmat = np.array(p)  # (G, n)
    gram = pmat @ pmat.T  # (G, G): p_g'p_h
    return math.sqrt(float(c @ v @ c)), float(np.trace(gram) ** 2 / np.sum(gram * gram))


TINY = {
    "unequal_3": ([0.2, 0.9, 0.4, 0.7, 0.1, 0.5, 0.8, 0.3, 0.6], ["a", "a", "b", "b", "b", "b", "b", "c", "c"]),
    "two_clusters": ([1, 0, 1, 1, 0, 0, 1, 0], [0, 0, 0, 1, 1, 1, 1, 1]),
    "with_singletons": ([0.3, 1.2, 0.7, 0.5, 0.9, 0.1, 0.4], [1, 2, 3, 3, 3, 4, 4]),
    "interleaved": ([1, 0, 0, 1, 1, 1, 0, 1, 0, 0], ["x", "y", "x", "z", "y", "x", "z", "y", "x", "z"]),
}


@pytest.mark.parametrize("name", sorted(TINY))
def test_summarize_cr2_equals_explicit_matrices(name):
    """The CR2 SE and df of a mean equal the textbook matrix computation."""
    y, g = TINY[name]
    se, df = cr2_explicit(np.array(y, float), np.array(g))
    s = _quiet(summarize, y, g)
    assert s.se == pytest.approx(se, rel=1e-12) and s.df == pytest.approx(df, rel=1e-12)


def test_explicit_matrices_equal_clubsandwich_fixtures():
    """The matrix computation itself reproduces clubSandwich on the small designs (checks the checker)."""
    for name in ("tiny_3", "two_clusters", "singletons_mixed", "constant_cluster", "unequal_8", "continuous_6"):
        ds = DATASETS[name]
        scores, clusters = _read(ds["path"])
        for m in ds["models"]:
            se, df = cr2_explicit(scores[m["model"]].to_numpy(float), clusters)
            assert _close(se, m["se"]) and _close(df, m["df"]), (name, m["model"])
        for p in ds["pairs"]:
            se, df = cr2_explicit(scores[p["model"]].to_numpy(float) - scores[p["baseline"]].to_numpy(float), clusters)
            assert _close(se, p["se"]) and _close(df, p["df"]), (name, p["model"], p["baseline"])


def test_compare_cr2_equals_explicit_matrices():
    """A clustered paired difference equals the matrix computation on y = a - b."""
    a = np.array([0.2, 0.9, 0.4, 0.7, 0.1, 0.5, 0.8, 0.3, 0.6, 0.55])
    b = np.array([0.1, 0.7, 0.6, 0.2, 0.3, 0.5, 0.4, 0.35, 0.9, 0.15])
    g = np.array([0, 0, 1, 1, 1, 1, 1, 2, 3, 3])
    se, df = cr2_explicit(a - b, g)
    c = _quiet(compare, a, b, g)
    assert c.se == pytest.approx(se, rel=1e-12) and c.df == pytest.approx(df, rel=1e-12)
    assert c.p_value == pytest.approx(2 * stats.t.sf(abs((a - b).mean()) / se, df), rel=1e-10)


def test_explicit_df_singletons_is_n_minus_1():
    """The matrix df with every question alone is n - 1 (the t-test), a sanity check on the formula."""
    y = np.array([0.3, 1.2, 0.7, 0.5, 0.9, 0.1, 0.4])
    se, df = cr2_explicit(y, np.arange(y.size))
    assert df == pytest.approx(y.size - 1, rel=1e-12)
    assert se == pytest.approx(y.std(ddof=1) / math.sqrt(y.size), rel=1e-12)


# ------------------------------------------------------------------------------------------------
# 5. Without clusters the default is the t-test


T_DATA = {
    "atlas_breeze": ([0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48],
                     [0.89, 0.58, 0.74, 0.56, 0.94, 0.35, 0.80, 0.59, 0.88, 0.53]),
    "binary_40": (np.random.default_rng(7).integers(0, 2, 40).tolist(),
                  np.random.default_rng(8).integers(0, 2, 40).tolist()),
}


@pytest.mark.parametrize("name", sorted(T_DATA))
def test_default_without_clusters_is_ttest_1samp(name):
    """summarize(interval="normal"): SE = sd/sqrt(n), df = n - 1, interval = scipy's one-sample t interval."""
    x = np.array(T_DATA[name][0], float)
    s = summarize(x, interval="normal")
    res = stats.ttest_1samp(x, 0.0)
    ci = res.confidence_interval(0.95)
    assert s.df == x.size - 1 == res.df
    assert s.se == pytest.approx(x.mean() / res.statistic, rel=1e-12)
    assert (s.ci_low, s.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-12)


@pytest.mark.parametrize("name", sorted(T_DATA))
def test_default_paired_without_clusters_is_ttest_rel(name):
    """compare(interval="normal") (paired): t = z, df = n - 1, p and interval = scipy's paired t-test."""
    a, b = (np.array(v, float) for v in T_DATA[name])
    c = compare(a, b, interval="normal")
    res = stats.ttest_rel(a, b)
    ci = res.confidence_interval(0.95)
    assert c.df == a.size - 1 == res.df
    assert c.z == pytest.approx(res.statistic, rel=1e-12)
    assert c.p_value == pytest.approx(res.pvalue, rel=1e-10)
    assert (c.ci_low, c.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-12)


def test_default_unpaired_is_welch():
    """compare(paired=False) default: Welch's t-test (Welch-Satterthwaite df), as scipy's equal_var=False."""
    a = np.array([0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48, 0.66, 0.71])
    b = np.array([0.89, 0.58, 0.74, 0.56, 0.94, 0.35, 0.80, 0.59])
    c = compare(a, b, paired=False)
    res = stats.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(0.95)
    assert c.df == pytest.approx(res.df, rel=1e-12)
    assert c.z == pytest.approx(res.statistic, rel=1e-12)
    assert c.p_value == pytest.approx(res.pvalue, rel=1e-10)
    assert (c.ci_low, c.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-12)


# ------------------------------------------------------------------------------------------------
# The inputs regenerate byte for byte from their seeded scripts


def _load_script(path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_design_csvs_regenerate_identically(tmp_path):
    """scripts/clubsandwich_oracle.py rewrites exactly the committed design CSVs (same bytes)."""
    written = _load_script(ROOT / "scripts" / "clubsandwich_oracle.py").write_designs(tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in DESIGNS.glob("*.csv"))
    for p in written:
        assert p.read_bytes() == (DESIGNS / p.name).read_bytes(), p.name


def test_example_files_regenerate_identically(tmp_path):
    """examples/make_examples.py rewrites exactly the committed example files (all six, same bytes)."""
    _load_script(ROOT / "examples" / "make_examples.py").main(tmp_path)
    names = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert names == sorted(p.name for p in (ROOT / "examples").glob("*.csv"))
    for name in names:
        assert (tmp_path / name).read_bytes() == (ROOT / "examples" / name).read_bytes(), name
