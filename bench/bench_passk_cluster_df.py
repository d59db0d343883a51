"""Coverage of pass@k's clustered interval with few unequal clusters, and one candidate fix measured (issue 42).

pass@k's interval is the house CR2 one: the SE of the mean of the per-question estimates clustered by the file's
clusters, t on Bell-McCaffrey degrees of freedom under a working model of independent questions
(``_clusters.cr2_weights``, as clubSandwich). With 8 unequal clusters (3-24 questions) it under-covers a little.
The candidate: the same SE with the degrees of freedom of Imbens & Kolesar (2016, REStat 98(4), Sec. IV.B), the
Bell-McCaffrey Satterthwaite df under an exchangeable working model whose within-cluster correlation ``rho`` is
estimated from the residuals (``rho = 0`` gives back the working-independence df exactly; checked on each run).

Design (the one of ``tests/test_passk.py``): cluster and question effects N(0, 1) each on the logit scale around
-0.8, 10 samples a question, k = 5; model B shifted by 0.5 on the logit scale; the truth is the super-population's
pass@5 (2,000,000 draws). ``--reps`` files a seed (default 4000); 95% intervals.

Run: ``nice -n 5 python bench/bench_passk_cluster_df.py [--clusters 8] [--reps 4000] [--seeds 1 2 3 7]``.
Results: ``bench/results/passk_cluster_df.txt``.
"""

from __future__ import annotations

import argparse

import numpy as np

from evalstats_core._clusters import cr2_weights, t_crit
from evalstats_core.passk import question_pass_at


def ik_df(values: np.ndarray, codes: np.ndarray, g: int) -> tuple[float, float]:
    """Imbens-Kolesar degrees of freedom of the CR2 mean of ``values`` (shape (n,)) in clusters ``codes``, and the
    estimated within-cluster correlation: ``tr(A Omega)^2 / tr((A Omega)^2)`` with ``A = diag(1 / (1 - n_g / n))``
    and ``Omega`` the covariance of the clusters' residual sums under ``(1 - rho) I + rho`` within a cluster,
    ``Omega = (1 - rho) D + rho D^2``, ``D = diag(n_g) - n_g n_h / n`` (diagonal plus rank 3: O(G))."""
    n = values.size
    sizes = np.bincount(codes, minlength=g).astype(float)
    e = values - values.mean()
    s = np.bincount(codes, weights=e, minlength=g)
    ss = np.bincount(codes, weights=e * e, minlength=g)
    pairs = float((sizes * (sizes - 1)).sum())
    tot = float((e * e).sum()) / n
    rho = 0.0 if pairs == 0 or tot == 0 else float(np.clip(((s * s - ss).sum() / pairs) / tot, 0.0, 1.0))
    nn, big = sizes, float(n)
    n2 = nn * nn
    a = 1.0 / (1.0 - nn / big)
    ad = a * ((1 - rho) * nn + rho * n2)
    c1 = -(1 - rho) / big + rho * float(n2.sum()) / big**2
    terms = [(c1 * nn, nn), (-rho / big * n2, nn), (-rho / big * nn, n2)]  # (u, v): u v' parts of Omega
    tr = ad.sum() + sum((a * u) @ v for u, v in terms)
    tr2 = (ad * ad).sum() + 2 * sum((ad * a * u) @ v for u, v in terms) + sum(
        ((a * u) @ vs) * ((a * us) @ v) for u, v in terms for us, vs in terms)
    return float(tr * tr / tr2), rho


def run(g: int, reps: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    k, n = 5, 10
    z = -0.8 + rng.normal(0, 1.0, 2_000_000) + rng.normal(0, 1.0, 2_000_000)
    true_a = np.mean(1 - (1 - 1 / (1 + np.exp(-z))) ** k)
    true_b = np.mean(1 - (1 - 1 / (1 + np.exp(-(z + 0.5)))) ** k)
    hits = np.zeros((2, 2))
    dfs = []
    for _ in range(reps):
        sizes = rng.integers(3, 25, g)
        logit = -0.8 + np.repeat(rng.normal(0, 1.0, g), sizes) + rng.normal(0, 1.0, sizes.sum())
        cl = np.repeat(np.arange(g), sizes)
        p, pb = 1 / (1 + np.exp(-logit)), 1 / (1 + np.exp(-(logit + 0.5)))
        ea = question_pass_at(n, (rng.random((p.size, n)) < p[:, None]).sum(1), k)
        eb = question_pass_at(n, (rng.random((p.size, n)) < pb[:, None]).sum(1), k)
        for j, (vals, truth) in enumerate(((ea, true_a), (eb - ea, true_b - true_a))):
            w, df_bm = cr2_weights(sizes.astype(float), vals.size)
            resid = np.bincount(cl, weights=vals - vals.mean(), minlength=g)
            se = float(np.sqrt((resid * resid) @ w)) / vals.size
            df_ik, rho = ik_df(vals, cl, g)
            for i, df in enumerate((df_bm, df_ik)):
                t = t_crit(0.95, df)
                hits[j, i] += vals.mean() - t * se <= truth <= vals.mean() + t * se
            if j == 0:
                dfs.append((df_bm, df_ik, rho))
    d = np.mean(dfs, axis=0)
    return (f"clusters {g}, {reps} files, seed {seed}: one model BM {hits[0, 0] / reps:.1%} IK {hits[0, 1] / reps:.1%}"
            f" | paired BM {hits[1, 0] / reps:.1%} IK {hits[1, 1] / reps:.1%} | mean df BM {d[0]:.2f} IK {d[1]:.2f},"
            f" rho {d[2]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--clusters", type=int, nargs="+", default=[8])
    ap.add_argument("--reps", type=int, default=4000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 7])
    args = ap.parse_args()
    sizes = np.array([3.0, 7.0, 24.0, 11.0])
    codes = np.repeat(np.arange(4), sizes.astype(int))
    vals = np.random.default_rng(0).normal(size=codes.size)
    vals -= np.bincount(codes, weights=vals)[codes] / sizes[codes]  # residuals with no cluster mean: rho <= 0 -> 0
    assert abs(ik_df(vals, codes, 4)[0] - cr2_weights(sizes, codes.size)[1]) < 1e-9  # rho = 0: the house df
    for g in args.clusters:
        for seed in args.seeds:
            print(run(g, args.reps, seed), flush=True)


if __name__ == "__main__":
    main()
