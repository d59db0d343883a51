"""The reference page's one computed story: what the Llama 3 report got wrong on DROP.

==============================  ====================================================================
``DROP_SCORE``                  the illustrative DROP score (87.1 F1) used with the Bernoulli formula
``llama3_drop()``               Bernoulli, naive (CLT) and clustered SEs for DROP, their ratios, the
                                design effect and the effective number of questions
==============================  ====================================================================

The naive and clustered standard errors are the ones Miller (2024, arXiv:2411.00640, Table 4) reports
for DROP (taken from :data:`evalstats_core.lessons.clustering.PAPER_EVALS`, so chapter 3 and this page
agree); the Bernoulli SE is computed with :func:`evalstats_core.intervals.se_bernoulli` for the
illustrative score. All SEs are in F1 points (0-100 scale).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import z_for
from ..clustering import effective_n
from ..intervals import se_bernoulli
from .clustering import PAPER_EVALS

__all__ = ["DROP_SCORE", "DROP_SCORE_CLUSTERED_SE", "DropErrors", "llama3_drop"]

#: Galleon's DROP score in Miller (2024, Table 3), on the F1 0-100 scale.
DROP_SCORE = 87.1
#: Galleon's clustered DROP SE as Table 3 prints it (F1 points). Table 4's 0.44 / 1.34 belong to another
#: model's scores, so they are never compared with the Bernoulli bound at 87.1.
DROP_SCORE_CLUSTERED_SE = 0.8


@dataclass(frozen=True, slots=True)
class DropErrors:
    """Three standard errors for DROP and what separates them (SEs in F1 points).

    Attributes
    ----------
    score : float
        Table 3's (fictional) Galleon DROP score (F1, 0-100), fed to the Bernoulli formula.
    score_clustered_se : float
        Table 3's clustered SE for that same score (0.8): the Bernoulli SE bounds this model's naive SE,
        and the clustered SE is what the bound misses.
    n_questions, n_clusters : int
        DROP's 9,622 questions in 588 passages.
    se_bernoulli : float
        ``100 sqrt(p (1 - p) / n)`` at ``p = score / 100``: Llama 3's formula, meant for 0/1 scores.
    se_naive, se_clustered : float
        The CLT and cluster-robust SEs reported in Miller (2024, Table 4), measured on a different model's
        DROP scores than the 87.1 (so the Bernoulli bound at 87.1 says nothing about 0.44).
    ratio : float
        ``se_clustered / se_naive`` as published (3.05).
    ratio_bernoulli : float
        ``se_clustered / se_bernoulli``: how far the Bernoulli SE falls short of the clustered one.
    deff, n_eff : float
        Design effect ``ratio**2`` and effective number of independent questions ``n / deff``.
    halfwidth_bernoulli, halfwidth_naive, halfwidth_clustered : float
        Half-widths ``z * SE`` of the 95% intervals built on each SE.
    """

    score: float
    score_clustered_se: float
    n_questions: int
    n_clusters: int
    se_bernoulli: float
    se_naive: float
    se_clustered: float
    ratio: float
    ratio_bernoulli: float
    deff: float
    n_eff: float
    halfwidth_bernoulli: float
    halfwidth_naive: float
    halfwidth_clustered: float


def llama3_drop(*, score: float = DROP_SCORE, confidence: float = 0.95) -> DropErrors:
    """DROP's standard errors: Table 3's model (Bernoulli bound 0.34, clustered 0.8) and Table 4's (naive 0.44,
    clustered 1.34 points).

    Notes
    -----
    Error 1 (too narrow): the naive SE ignores the 588 passage clusters; the clustered SE (Miller 2024,
    Eq. 4) is 3.05 times larger, a design effect of 9.3, so 9,622 questions are worth about 1,034
    independent ones. Error 2 (too wide): for scores in [0, 1], ``Var(s) <= s_bar (1 - s_bar)``, so the
    Bernoulli SE (Eq. 2) is an upper bound on the CLT SE (Eq. 1) *of the same scores*, reached only for
    0/1 scores. At Table 3's 87.1 F1 it is 0.34 points, so that model's naive SE is at most 0.34, while
    its clustered SE is 0.8 (Table 3). Table 4's naive 0.44 exceeds 0.34 because it is another model's.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 2.1-2.2, Tables 3-4.
    """
    drop = next(e for e in PAPER_EVALS if e.eval == "DROP")
    se_b = 100.0 * se_bernoulli(score / 100.0, drop.n_questions)  # Eq. 2, in F1 points
    deff = drop.ratio**2  # design effect = ratio of variances
    z = z_for(confidence)
    return DropErrors(
        score=float(score), score_clustered_se=DROP_SCORE_CLUSTERED_SE, n_questions=drop.n_questions, n_clusters=drop.n_clusters, se_bernoulli=se_b,
        se_naive=drop.se_naive, se_clustered=drop.se_clustered, ratio=drop.ratio,
        ratio_bernoulli=drop.se_clustered / se_b, deff=deff, n_eff=effective_n(drop.n_questions, deff),
        halfwidth_bernoulli=z * se_b, halfwidth_naive=z * drop.se_naive, halfwidth_clustered=z * drop.se_clustered,
    )
