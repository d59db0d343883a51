"""Reports of a :class:`~evalstats_core.pairwise.PairwiseResult`: JSON, Markdown, LaTeX, HTML and CSV, and the frames
the workbench and the charts draw.

=========================  =======================================================================================
:func:`render_pairwise`    the whole report as ``"json"``, ``"markdown"``, ``"latex"``, ``"html"`` or ``"csv"``
:func:`ratings_frame`      one row per model: rating, clustered and bootstrap intervals, ranks (the forest chart's)
:func:`win_matrix_frame`   one row per ordered pair: the win rate and its interval (the matrix chart's)
:func:`ratings_display`    the ratings table as people read it (strings), and :func:`win_rates_display`
:func:`csv_tables`         ``ratings.csv`` and ``win_rates.csv``: full precision, spreadsheet-safe
=========================  =======================================================================================

One formatter prints every number (:class:`~evalstats_core.vocabulary.Formatter`: ratings to one decimal, win
rates in percent), so the page, Markdown, LaTeX, HTML and CSV agree; user text (model names, the file's name) goes
through the one escaper of each target (:mod:`evalstats_core.escape`), and every text cell of a CSV through
:func:`~evalstats_core.escape.csv_safe`, which neutralises a leading ``= + - @``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from .errors import EvalStatsError
from .escape import elide, escape_html, escape_latex, escape_markdown, latex_cell
from .pairwise import PairwiseResult, pairwise_analysis
from .pairwise_data import KINDS, MAX_MODELS, STRONG_WEIGHT, load_battles
from .report import csv_text
from .vocabulary import NONE, Formatter, fmt_p, level

__all__ = ["render_pairwise", "ratings_frame", "win_matrix_frame", "ratings_display", "win_rates_display",
           "separation_display", "csv_tables", "summary_line", "files_report", "FORMATS"]

FORMATS = ("markdown", "json", "latex", "html", "csv")
_RATING = Formatter(percent=False, decimals=1)
_RATE = Formatter(percent=True, decimals=1)


def _interval(f: Formatter, low: float, high: float) -> str:
    return f.interval(low, high) if math.isfinite(low) and math.isfinite(high) else NONE


def _ranks(best: int, worst: int) -> str:
    return f"{best}" if best == worst else f"{best}-{worst}"


def summary_line(result: PairwiseResult) -> str:
    """What was read and how it was fitted, in one paragraph (user text not escaped: the caller escapes it)."""
    kinds = " + ".join(KINDS.get(k, k) for k in result.kind.split("+"))
    return (f"{result.n_battles:,} battles on {result.n_prompts:,} prompts between {len(result.ratings)} models "
            f"({kinds}). Ratings: Bradley-Terry by maximum likelihood (no penalty), on the Elo scale (400 points are "
            f"10-to-1 odds); {result.anchor_words()}. A tie counts half a win for each model. Intervals at "
            f"{level(result.confidence)} are clustered by prompt (ratings: sandwich, t with {result.n_prompts - 1} df; "
            "win rates: CR2); Chatbot Arena's bootstrap, which resamples battles as if independent, is shown beside "
            f"them ({result.n_boot:,} resamples, seed {result.seed}).")


# ------------------------------------------------------------------------------------------------ frames
def ratings_frame(result: PairwiseResult) -> pd.DataFrame:
    """One row per model, best first: ``model, rating, se, ci_low, ci_high, se_plain, boot_low, boot_high, rank,
    worst_rank, group, battles``."""
    return pd.DataFrame([{"model": r.model, "rating": r.rating, "se": r.se, "ci_low": r.ci_low, "ci_high": r.ci_high,
                          "se_plain": r.se_plain, "boot_low": r.boot_low, "boot_high": r.boot_high, "rank": r.rank,
                          "worst_rank": r.worst_rank, "group": r.group, "battles": r.battles} for r in result.ratings])


def win_matrix_frame(result: PairwiseResult) -> pd.DataFrame:
    """One row per ordered pair that met, in the rating order: ``model, opponent, rate, n, prompts, ci_low, ci_high,
    label`` (the rate as the tables print it)."""
    order = {m: k for k, m in enumerate(result.models)}
    rows = [{"model": w.model, "opponent": w.opponent, "rate": w.rate, "n": w.n, "prompts": w.prompts,
             "ci_low": w.ci_low, "ci_high": w.ci_high, "label": _RATE.num(w.rate)} for w in result.win_rates]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    key = frame["model"].map(order) * len(order) + frame["opponent"].map(order)
    return frame.iloc[key.argsort(kind="stable")].reset_index(drop=True)


# ------------------------------------------------------------------------------------------------ display tables
def ratings_display(result: PairwiseResult) -> pd.DataFrame:
    """The ratings table as every report prints it (strings; user text not escaped)."""
    lv = level(result.confidence)
    return pd.DataFrame({
        "rank": [_ranks(r.rank, r.worst_rank) for r in result.ratings],
        "model": [r.model for r in result.ratings],
        "rating": [_RATING.num(r.rating) for r in result.ratings],
        "SE": [_RATING.num(r.se) for r in result.ratings],
        f"{lv} CI (by prompt)": [_interval(_RATING, r.ci_low, r.ci_high) for r in result.ratings],
        "SE if battles were independent": [_RATING.num(r.se_plain) for r in result.ratings],
        f"{lv} CI (Arena bootstrap)": [_interval(_RATING, r.boot_low, r.boot_high) for r in result.ratings],
        "group": [r.group for r in result.ratings],
        "battles": [f"{r.battles:,}" for r in result.ratings],
    })


def win_rates_display(result: PairwiseResult) -> pd.DataFrame:
    """Every ordered pair's win rate (strings), in the rating order."""
    f = win_matrix_frame(result)
    if f.empty:
        return pd.DataFrame(columns=["model", "opponent", "win rate", "battles", "prompts", "CI"])
    lv = level(result.confidence)
    return pd.DataFrame({"model": f["model"], "opponent": f["opponent"], "win rate": f["label"],
                         "battles": [f"{n:,}" for n in f["n"]], "prompts": [f"{n:,}" for n in f["prompts"]],
                         f"{lv} CI (by prompt)": [_interval(_RATE, lo, hi) for lo, hi in zip(f["ci_low"],
                                                                                             f["ci_high"],
                                                                                             strict=True)]})


def separation_display(result: PairwiseResult) -> pd.DataFrame:
    """Each model against the next one down: the difference, its SE and p, and the battles that would separate them."""
    return pd.DataFrame({
        "model": [s.model for s in result.separation], "next": [s.opponent for s in result.separation],
        "difference": [_RATING.num(s.difference, signed=True) for s in result.separation],
        "SE": [_RATING.num(s.se) for s in result.separation],
        "p": [fmt_p(s.p_value) for s in result.separation],
        "battles needed": [NONE if s.battles_needed is None else f"{s.battles_needed:,}" for s in result.separation],
    })


def _separation_words(result: PairwiseResult) -> list[str]:
    """One sentence per neighbouring pair: told apart, or how many battles of this mix would tell them apart."""
    out = []
    alpha = 1.0 - result.confidence
    for s in result.separation:
        gap = _RATING.num(abs(s.difference))
        if math.isfinite(s.p_value) and s.p_value < alpha:
            out.append(f"{s.model} is above {s.opponent} by {gap} points (p = {fmt_p(s.p_value)}, not adjusted).")
        elif s.battles_needed is None:
            out.append(f"{s.model} and {s.opponent} are rated alike: no number of battles would separate them.")
        else:
            out.append(f"{s.model} and {s.opponent} are not told apart (p = {fmt_p(s.p_value)}): if the gap is "
                       f"{gap} points, about {s.battles_needed:,} battles of this mix (this file has "
                       f"{result.n_battles:,}) would separate them with 80% power.")
    return out


# ------------------------------------------------------------------------------------------------ formats
def _markdown_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(escape_markdown(c) for c in frame.columns) + " |"
    rule = "|" + "|".join(" --- " if i < 2 else " ---: " for i in range(len(frame.columns))) + "|"
    body = ["| " + " | ".join(escape_markdown(elide(v)) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _markdown(result: PairwiseResult) -> str:
    parts = [f"# Pairwise preferences: {escape_markdown(elide(result.name))}", "", escape_markdown(summary_line(result)),
             "", "## Ratings", "", _markdown_table(ratings_display(result)), "",
             "Rank: 1 + the models surely above (Holm-adjusted tests of every difference); a range where the tests "
             "leave the order open. Models sharing a group letter cannot be told apart.", ""]
    if result.separation:
        parts += ["## Neighbours", "", _markdown_table(separation_display(result)), ""]
        parts += [f"- {escape_markdown(elide(w, 400))}" for w in _separation_words(result)] + [""]
    parts += ["## Win rates", "", _markdown_table(win_rates_display(result)), ""]
    if result.notes:
        parts += ["## Notes", ""] + [f"- {escape_markdown(n)}" for n in result.notes] + [""]
    return "\n".join(parts)


def _latex_table(frame: pd.DataFrame, caption: str) -> str:
    spec = "ll" + "r" * (len(frame.columns) - 2)
    head = " & ".join(latex_cell(c) for c in frame.columns) + r" \\"
    body = [" & ".join(latex_cell(elide(v)) for v in row) + r" \\" for row in frame.itertuples(index=False)]
    return "\n".join([r"\begin{table*}[t]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{4pt}",
                      rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                      head, r"\midrule", *body, r"\bottomrule", r"\end{tabular}", rf"\caption{{{caption}}}",
                      r"\end{table*}"])


def _latex(result: PairwiseResult) -> str:
    how = escape_latex(summary_line(result))
    lv = level(result.confidence)
    short = ratings_display(result).rename(columns={  # headers that fit a two-column paper's full width
        f"{lv} CI (by prompt)": "CI by prompt", "SE if battles were independent": "SE indep.",
        f"{lv} CI (Arena bootstrap)": "CI Arena boot."}).drop(columns=["battles"])
    ratings = _latex_table(short, "Bradley--Terry ratings. " + how)
    rates = _latex_table(win_rates_display(result), "Win rates (a tie counts half), clustered by prompt.")
    return (f"% evalbars pairwise: {escape_latex(elide(result.name))}\n"
            "% needs \\usepackage{booktabs}\n" + ratings + "\n\n" + rates + "\n")


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{escape_html(c)}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(f"<td>{escape_html(elide(v))}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


_STYLE = ("body{font:15px/1.45 system-ui,sans-serif;color:#222;max-width:1100px;margin:2em auto;padding:0 1em}"
          "table{border-collapse:collapse;margin:.6em 0}th,td{padding:.25em .7em;border-bottom:1px solid #e5e5e5;"
          "text-align:right}th:nth-child(-n+2),td:nth-child(-n+2){text-align:left}th{border-bottom:2px solid #999}")


def _html(result: PairwiseResult) -> str:
    title = f"Pairwise preferences: {escape_html(elide(result.name))}"
    notes = "".join(f"<li>{escape_html(n)}</li>" for n in result.notes)
    words = "".join(f"<li>{escape_html(w)}</li>" for w in _separation_words(result))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{title}</h1><p>{escape_html(summary_line(result))}</p>"
            f"<h2>Ratings</h2>{_html_table(ratings_display(result))}"
            f"<h2>Neighbours</h2>{_html_table(separation_display(result))}<ul>{words}</ul>"
            f"<h2>Win rates</h2>{_html_table(win_rates_display(result))}"
            + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "") + "</body></html>\n")


def csv_tables(result: PairwiseResult) -> dict[str, str]:
    """``ratings.csv`` and ``win_rates.csv``: numbers in full precision, every text cell through ``csv_safe``."""
    r = ratings_frame(result)
    w = win_matrix_frame(result).drop(columns=["label"], errors="ignore")
    return {"ratings.csv": csv_text(list(r.columns), r.itertuples(index=False)),
            "win_rates.csv": csv_text(list(w.columns), w.itertuples(index=False))}


def render_pairwise(result: PairwiseResult, fmt: str = "markdown", *, table: str = "ratings") -> str:
    """The report in ``fmt`` (one of :data:`FORMATS`); with ``"csv"``, ``table`` is ``"ratings"`` or ``"win_rates"``.

    >>> from evalstats_core import examples
    >>> from evalstats_core.pairwise import pairwise_analysis
    >>> from evalstats_core.pairwise_data import load_battles
    >>> res = pairwise_analysis(load_battles([examples.path("pairwise_battles.tsv")]), n_boot=0)
    >>> json.loads(render_pairwise(res, "json"))["ratings"][0]["model"]
    'Dreadnought'
    >>> render_pairwise(res, "markdown").splitlines()[4]
    '## Ratings'
    """
    if fmt == "json":
        return json.dumps(result.to_dict(), indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return _markdown(result)
    if fmt == "latex":
        return _latex(result)
    if fmt == "html":
        return _html(result)
    if fmt == "csv":
        if table not in ("ratings", "win_rates"):
            raise EvalStatsError(f"table ({table!r}) must be 'ratings' or 'win_rates'")
        return csv_tables(result)[f"{table}.csv"]
    raise EvalStatsError(f"fmt ({fmt!r}) must be one of {', '.join(FORMATS)}")



def files_report(paths: Any, *, baseline: str | None = None, strong_weight: int = STRONG_WEIGHT,
                 confidence: float = 0.95, anchor: str | None = None, n_boot: int = 1000, seed: int = 0,
                 fmt: str = "markdown", table: str = "ratings", max_models: int | None = None,
                 limits: Any = None) -> tuple[str, tuple[str, ...]]:
    """``evalbars pairwise``'s one call: the files read (:func:`~evalstats_core.pairwise_data.load_battles`, at most
    ``max_models`` models, default :data:`~evalstats_core.pairwise_data.MAX_MODELS`; each file within ``limits``),
    analysed (:func:`~evalstats_core.pairwise.pairwise_analysis`) and rendered; returns the report and its notes."""
    most = MAX_MODELS if max_models is None else max_models
    result = pairwise_analysis(load_battles(paths, baseline=baseline, strong_weight=strong_weight, limits=limits,
                                            max_models=most),
                               confidence=confidence, anchor=anchor, n_boot=n_boot, seed=seed)
    return render_pairwise(result, fmt, table=table), result.notes
