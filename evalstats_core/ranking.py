"""Rank models with their uncertainty: which models can be told apart, and which cannot.

=========================  ===========================================================================
:func:`rank_models`        order models by mean score and group those the pairwise tests cannot separate
:func:`letter_display`     compact letter display from a matrix of "significantly different" flags
``Ranking``                the ordered models, their letters, tied groups and possible ranks
=========================  ===========================================================================

A leaderboard that sorts models by their mean score claims an order the data may not support. Here the
order comes with two honest summaries built from the (multiplicity-adjusted) pairwise tests:

* a **compact letter display**: each model gets one or more letters, and two models share a letter
  exactly when their difference is *not* significant (Piepho 2004). Models with the letter ``a`` are
  the ones that cannot be told apart from the top model, and so on.
* the **possible ranks** of each model: its best rank is one plus the number of models significantly
  better than it, its worst rank is the number of models minus those significantly worse.

Use the adjusted p-values (Holm or Benjamini-Hochberg) of every pair, not the raw ones: with ``m``
models there are ``m (m - 1) / 2`` tests and some will look significant by chance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ._results import rejects
from ._validate import check_probability
from .errors import EvalStatsError

__all__ = ["Ranking", "rank_models", "letter_display"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True, slots=True)
class Ranking:
    """Models ordered by mean score, with the groups the pairwise tests cannot separate.

    Attributes
    ----------
    models : tuple of str
        Model names, best first: by possible rank (the middle of ``best_rank`` and ``worst_rank``),
        then by mean score (ties keep the input order), so the order never contradicts a
        significant test.
    means : tuple of float
        Mean score of each model, in the order of ``models``.
    letters : tuple of str
        Compact letter display, one string per model (e.g. ``"a"``, ``"ab"``); two models share a
        letter exactly when their difference is not significant at ``alpha``.
    groups : tuple of tuple of str
        The models carrying each letter, in letter order: the "tied groups".
    best_rank, worst_rank : tuple of int
        Possible ranks of each model (1 = best): ``1 + #models surely better`` and
        ``m - #models surely worse``, where "surely" follows chains of significant differences.
    alpha : float
        Significance level the adjusted p-values were compared with.
    n_significant : int
        Number of pairs whose adjusted p-value is below ``alpha``.
    """

    models: tuple[str, ...]
    means: tuple[float, ...]
    letters: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    best_rank: tuple[int, ...]
    worst_rank: tuple[int, ...]
    alpha: float
    n_significant: int

    def to_frame(self) -> pd.DataFrame:
        """One row per model: ``rank`` (display order), ``model``, ``mean``, ``group`` letters, possible ranks."""
        return pd.DataFrame({
            "rank": range(1, len(self.models) + 1),
            "model": list(self.models),
            "mean": list(self.means),
            "group": list(self.letters),
            "possible_ranks": [f"{b}" if b == w else f"{b}-{w}" for b, w in zip(self.best_rank, self.worst_rank, strict=False)],
        })

    def sentence(self) -> str:
        """A plain-words summary of the groups ("A and B cannot be told apart; ...")."""
        if len(self.models) < 2:
            return "Only one model: nothing to rank."
        if len(self.groups) == 1:
            return "None of the models can be told apart: the order of their means may be chance."
        if all(len(g) == 1 for g in self.groups) and len(self.groups) == len(self.models):
            return "Every pair can be told apart: " + " > ".join(self.models) + "."
        parts = []
        for letter, group in zip(_LETTERS, self.groups, strict=False):
            if len(group) == 1:
                parts.append(f"group {letter}: {group[0]} alone")
            else:
                parts.append(f"group {letter}: {', '.join(group)} (cannot be told apart)")
        return "; ".join(parts) + "."


def letter_display(significant: Sequence[Sequence[bool]]) -> list[str]:
    """Compact letter display for models already sorted best first (insert-absorb, Piepho 2004).

    Parameters
    ----------
    significant : square matrix of bool, shape (m, m)
        ``significant[i][j]`` is True when models ``i`` and ``j`` differ significantly; it must be
        symmetric with a False diagonal. Row order is the display order (best model first).

    Returns
    -------
    list of str
        One string of letters per model. Two models share a letter if and only if they are *not*
        significantly different.

    Notes
    -----
    Start with one letter shared by all models. For each significant pair ``(i, j)``, every letter
    column holding both is split in two (one without ``i``, one without ``j``); then columns that are
    subsets of other columns are absorbed. Letters are then named in the order of the first (best)
    model holding them. The loops run over pairs of models, not over questions (``m`` is small).

    References
    ----------
    Piepho 2004, "An algorithm for a letter-based representation of all-pairwise comparisons",
    J. Computational and Graphical Statistics 13(2), 456-466, Sec. 3 ("insert-absorb").

    Examples
    --------
    >>> letter_display([[False, False, True], [False, False, False], [True, False, False]])
    ['a', 'ab', 'b']
    """
    m = len(significant)
    for i, row in enumerate(significant):
        if len(row) != m:
            raise EvalStatsError(f"significant must be square (row {i} has {len(row)} entries, expected {m})")
        if row[i]:
            raise EvalStatsError(f"significant[{i}][{i}] is True: a model cannot differ from itself")
        for j in range(m):
            if bool(row[j]) != bool(significant[j][i]):
                raise EvalStatsError(f"significant is not symmetric at ({i}, {j}); pass one flag per pair")
    if m == 0:
        return []
    # a column is a bit mask of its models (bit k: model k); the columns stay an antichain (none inside another)
    masks = [(1 << m) - 1]
    for i in range(m):
        for j in range(i + 1, m):
            if not significant[i][j]:
                continue
            both = (1 << i) | (1 << j)
            kept = [c for c in masks if c & both != both]
            split = [c for c in masks if c & both == both]
            if split:  # insert: split each column holding both, then absorb
                masks = kept + _absorb(kept, [c & ~bit for c in split for bit in (1 << i, 1 << j)])
    columns = [frozenset(k for k in range(m) if c >> k & 1) for c in masks]
    columns.sort(key=lambda col: (min(col), sorted(col)))
    if len(columns) > len(_LETTERS):
        names = [f"{_LETTERS[k % 26]}{k // 26}" if k >= 26 else _LETTERS[k] for k in range(len(columns))]
    else:
        names = list(_LETTERS[: len(columns)])
    return ["".join(name for name, col in zip(names, columns, strict=False) if i in col) for i in range(m)]


def _absorb(kept: list[int], new: list[int]) -> list[int]:
    """The ``new`` columns (bit masks) that are maximal beside ``kept`` (an antichain the split left alone): empty,
    duplicate and subset columns dropped. A kept column never lies inside a new one (each new one lies inside a
    column it was split from), so only the new ones are tested: the columns are then the same maximal sets as
    absorbing the whole list would leave (Piepho 2004's absorb), found in O(new x columns) bit operations."""
    unique = sorted({c for c in new if c}, key=lambda c: c.bit_count(), reverse=True)
    out: list[int] = []
    for col in unique:
        if not any(col & other == col for other in kept) and not any(col & other == col for other in out):
            out.append(col)
    return out


def rank_models(means: Any, pairs: Iterable[tuple[str, str, float]], *, alpha: float = 0.05) -> Ranking:
    """Order models by mean and group those that the adjusted pairwise tests cannot tell apart.

    Parameters
    ----------
    means : mapping of str -> float, or a sequence of ``(model, mean)``
        Each model's mean score.
    pairs : iterable of ``(model_a, model_b, adjusted_p)`` or ``(model_a, model_b, adjusted_p, diff)``
        The adjusted p-value of every pair that was tested, and optionally the difference
        ``mean(model_a) - mean(model_b)`` *on the questions both answered* -- the one the test was
        about. Give it whenever models skipped questions: the direction of a significant difference
        then comes from the test itself, never from means over different question sets (which can
        point the other way). Without it the direction comes from ``means``. A pair that was not
        tested (e.g. two non-baseline models when comparing against a baseline) or has a NaN p-value
        counts as *not* significantly different: the display never claims a difference that was not
        tested.
    alpha : float, default 0.05
        Significance level for the adjusted p-values (``1 - confidence``).

    Returns
    -------
    Ranking
        Ordered models, letters, tied groups and possible ranks.

    Raises
    ------
    EvalStatsError
        A pair names a model without a mean, a model without a finite mean, or a bad ``alpha``.

    Notes
    -----
    Write ``j > i`` when ``p_ij < alpha`` and the tested difference ``j - i`` is positive (or, without
    it, ``mean_j > mean_i``), and close the relation under
    transitivity (true means are ordered numbers, so ``A > B > C`` places A above C even when that test
    alone is not significant). Best possible rank of ``i``: ``1 + #{j : j > i}``; worst: ``m - #{j : i > j}``.
    These are exactly the smallest and largest positions of ``i`` over all orders of the models that
    respect every significant difference.

    Examples
    --------
    >>> r = rank_models({"A": 0.70, "B": 0.66, "C": 0.60}, [("A", "B", 0.30), ("A", "C", 0.01),
    ...                                                   ("B", "C", 0.20)])
    >>> list(r.letters), r.best_rank, r.worst_rank
    (['a', 'ab', 'b'], (1, 1, 2), (2, 3, 3))

    B's mean over all its questions is higher, but on the questions both answered A scored 3 points more
    and the test is significant: A is placed above B.

    >>> r = rank_models({"A": 0.60, "B": 0.62}, [("A", "B", 0.01, 0.03)])
    >>> r.models, r.best_rank, r.worst_rank
    (('A', 'B'), (1, 2), (1, 2))
    """
    alpha = check_probability(alpha, "alpha")
    items = list(means.items()) if hasattr(means, "items") else [tuple(x) for x in means]
    names = [str(k) for k, _ in items]
    if len(set(names)) != len(names):
        raise EvalStatsError("means names a model twice; give one mean per model")
    values: dict[str, float] = {}
    for name, value in zip(names, (v for _, v in items), strict=False):
        v = float(value)
        if not math.isfinite(v):
            raise EvalStatsError(f"the mean of model {name!r} is {value!r}; every mean must be a finite number")
        values[name] = v
    order = sorted(range(len(names)), key=lambda i: -values[names[i]])  # stable: ties keep input order
    models = [names[i] for i in order]
    index = {name: k for k, name in enumerate(models)}
    m = len(models)
    sig = [[False] * m for _ in range(m)]
    # gap[i][j]: the tested difference model i - model j (means by default; shared questions when given)
    gap = [[values[models[i]] - values[models[j]] for j in range(m)] for i in range(m)]
    n_sig = 0
    for pair in pairs:
        if len(pair) not in (3, 4):
            raise EvalStatsError(f"pair {pair!r} must be (model_a, model_b, adjusted_p) or (..., diff)")
        a, b, p = str(pair[0]), str(pair[1]), pair[2]
        for name in (a, b):
            if name not in index:
                raise EvalStatsError(f"pair ({a!r}, {b!r}) names model {name!r}, which has no mean")
        p = float(p)
        if len(pair) == 4 and math.isfinite(float(pair[3])) and a != b:
            gap[index[a]][index[b]], gap[index[b]][index[a]] = float(pair[3]), -float(pair[3])
        if a != b and rejects(p, alpha) and not sig[index[a]][index[b]]:
            sig[index[a]][index[b]] = sig[index[b]][index[a]] = True
            n_sig += 1
    above = _closure([[sig[i][j] and gap[i][j] > 0.0 for j in range(m)] for i in range(m)])
    best_of = [1 + sum(above[j][i] for j in range(m)) for i in range(m)]  # models surely better than i
    worst_of = [m - sum(above[i][j] for j in range(m)) for i in range(m)]  # minus those surely worse
    # display order: by possible rank (so the order never contradicts a significant test), then by mean
    order = sorted(range(m), key=lambda i: (best_of[i] + worst_of[i], i))
    models = [models[i] for i in order]
    sig = [[sig[i][j] for j in order] for i in order]
    best = tuple(best_of[i] for i in order)
    worst = tuple(worst_of[i] for i in order)
    letters = letter_display(sig)
    split = [_split_letters(s) for s in letters]  # each model's letter names, split once
    letter_names = sorted({ch for names in split for ch in names}, key=_letter_key)
    groups = tuple(tuple(mod for mod, names in zip(models, split, strict=False) if name in names)
                   for name in letter_names)
    return Ranking(
        models=tuple(models),
        means=tuple(values[x] for x in models),
        letters=tuple(letters),
        groups=groups,
        best_rank=best,
        worst_rank=worst,
        alpha=alpha,
        n_significant=n_sig,
    )


def _closure(better: list[list[bool]]) -> list[list[bool]]:
    """Transitive closure of "i is significantly above j" (Warshall): true means are ordered, so if
    A is above B and B above C, A is above C even when the A-C test alone was not significant."""
    m = len(better)
    reach = [row[:] for row in better]
    for k in range(m):
        for i in range(m):
            if reach[i][k]:
                row_k = reach[k]
                reach[i] = [a or b for a, b in zip(reach[i], row_k, strict=False)]
    return reach


def _split_letters(s: str) -> list[str]:
    """Split a letter string into letter names (``"ab"`` -> a, b; beyond z names are ``"a1"``...)."""
    out: list[str] = []
    for ch in s:
        if ch.isdigit() and out:
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _letter_key(name: str) -> tuple[int, int]:
    return (int(name[1:]) if len(name) > 1 else 0, _LETTERS.index(name[0]))
