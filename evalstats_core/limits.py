"""Budgets for one analysis: how many bytes, scores, models and pairs a results file may bring.

=====================  ============================================================================
``Limits``             the budgets (bytes read, scores, models, pairwise comparisons), with defaults
``Limits.from_env``    the defaults, overridden by ``EVALSTATS_MAX_*`` environment variables
``check_pairs``        the number of comparisons an analysis would run, checked against the budget
=====================  ============================================================================

A small file can ask for a huge analysis: a 1.7 MB CSV with 100,000 model columns asks for five
billion pairwise comparisons, and a 3.4 MB Parquet file of one dictionary-encoded constant column
holds 200 million rows. The loader therefore checks these budgets from the file's *metadata* (the
Parquet footer's row count and schema, a CSV's header and line count) before it reads the body, and
every refusal names the limit, the file's number and how to raise the limit (a command-line option
or an environment variable). The defaults keep a 2-core, 4 GB server (several sessions at once)
safe: 10 million scores take about 0.6 GB while they are read and checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

from .errors import EvalStatsError

__all__ = ["Limits", "check_pairs"]

#: bytes of memory per score while a file is read, validated and reduced (measured: ~60 B; rounded up)
BYTES_PER_SCORE = 64

_ENV = {"max_bytes": "EVALSTATS_MAX_MB", "max_rows": "EVALSTATS_MAX_ROWS", "max_models": "EVALSTATS_MAX_MODELS",
        "max_pairs": "EVALSTATS_MAX_PAIRS"}


@dataclass(frozen=True, slots=True)
class Limits:
    """Budgets for reading and analyzing one results file.

    Attributes
    ----------
    max_bytes : int
        Bytes of file content read (after decompression): 512 MB by default.
    max_rows : int
        Scores read: rows of a long file, filled cells of a wide one (10 million by default,
        about 0.6 GB of working memory).
    max_models : int
        Distinct models (1,000 by default). A wide file with more model columns than that is most
        likely transposed (one row per model).
    max_pairs : int
        Pairwise comparisons in one analysis (5,000 by default: every pair of 100 models). Beyond it,
        compare every model with one baseline instead.
    """

    max_bytes: int = 512 * 2**20
    max_rows: int = 10_000_000
    max_models: int = 1_000
    max_pairs: int = 5_000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise EvalStatsError(f"{f.name} ({value!r}) must be a whole number >= 1")

    @classmethod
    def from_env(cls, environ: dict | None = None, **overrides: int | None) -> Limits:
        """The defaults, then ``EVALSTATS_MAX_MB``/``_ROWS``/``_MODELS``/``_PAIRS``, then ``overrides``.

        Examples
        --------
        >>> Limits.from_env({"EVALSTATS_MAX_MODELS": "50"}, max_rows=1000).max_models
        50
        """
        env = os.environ if environ is None else environ
        limits = cls()
        for name, var in _ENV.items():
            text = env.get(var)
            if text:
                try:
                    value = int(float(text) * (2**20 if name == "max_bytes" else 1))
                except ValueError:
                    raise EvalStatsError(f"environment variable {var}={text!r} is not a number; "
                                         "unset it or give a whole number") from None
                limits = replace(limits, **{name: value})
        given = {k: v for k, v in overrides.items() if v is not None}
        if "max_bytes" in given:
            given["max_bytes"] = int(given["max_bytes"])
        return replace(limits, **given) if given else limits

    @staticmethod
    def how_to_raise(name: str) -> str:
        """The words that say how to raise one budget, for messages."""
        return f"raise it with limits=Limits({name}=...) or the environment variable {_ENV[name]}"


def estimate(n_scores: int) -> str:
    """The working memory ``n_scores`` scores need, in words (``"about 1.2 GB"``)."""
    gb = n_scores * BYTES_PER_SCORE / 1e9
    return f"about {gb:,.1f} GB" if gb >= 1 else f"about {max(1.0, gb * 1000):,.0f} MB"


def check_pairs(n_models: int, baseline: str | None, limits: Limits, label: str) -> int:
    """The number of comparisons of an analysis; raise when it exceeds ``limits.max_pairs``.

    Examples
    --------
    >>> check_pairs(100, None, Limits(), "f.csv"), check_pairs(5000, "A", Limits(max_models=9999), "f.csv")
    (4950, 4999)
    """
    pairs = n_models * (n_models - 1) // 2 if baseline is None else n_models - 1
    if pairs > limits.max_pairs:
        raise EvalStatsError(
            f"{label} has {n_models:,} models, so comparing every pair means {pairs:,} comparisons, more than the "
            f"limit of {limits.max_pairs:,}; compare every model with one baseline instead (baseline=), or "
            f"{Limits.how_to_raise('max_pairs')}")
    return pairs
