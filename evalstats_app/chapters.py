"""The table of contents: one place that names every page, its title and its place in the sidebar.

The sidebar, the home page's map and the previous/next links all read this list, so adding a chapter
is one line here plus its page script and content file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["Page", "PAGES", "LEARN", "TryIt", "TRY_IT", "FORWARD", "page_by_slug", "neighbours", "available"]

_PKG = Path(__file__).resolve().parent
# The app's scripts: the repository root in a checkout; evalstats_app/site in an installed wheel.
ROOT = _PKG / "site" if (_PKG / "site" / "app.py").is_file() else _PKG.parent


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the app.

    slug: content file stem and widget-key prefix; path: the script, relative to app.py;
    section: "Learn", "Analyze", "Reference" or "Teach"; icon: a Material icon for the sidebar.
    """

    slug: str
    path: str
    title: str
    section: str
    icon: str
    blurb: str


PAGES: tuple[Page, ...] = (
    Page("problem", "pages/problem.py", "1 · The problem", "Learn", ":material/help:",
         "Why \"65.5% vs 64.0%\" means nothing without error bars."),
    Page("one_model", "pages/one_model.py", "2a · One model's error bars", "Learn", ":material/straighten:",
         "Mean, SE and a 95% CI step by step, z and t; which SE fits partial credit."),
    Page("small_n", "pages/small_n.py", "2b · Accuracy at small N", "Learn", ":material/target:",
         "Four intervals for k right out of n, and a lab that checks which keep their 95%."),
    Page("clustering", "pages/clustering.py", "3 · Clustering", "Learn", ":material/workspaces:",
         "Questions that come in groups carry less information than their count."),
    Page("paired", "pages/paired.py", "4 · Paired vs unpaired", "Learn", ":material/compare_arrows:",
         "Compare two models on the same questions and their shared variance cancels."),
    Page("resampling", "pages/resampling.py", "5 · Resampling returns", "Learn", ":material/replay:",
         "More answers per question, and where that stops paying."),
    Page("temperature", "pages/temperature.py", "6 · The temperature trap", "Learn", ":material/thermostat:",
         "Why T = 0 can make an eval less precise and biased."),
    Page("power", "pages/power.py", "7 · Power calculator", "Learn", ":material/calculate:",
         "How many questions before you run the eval."),
    Page("verdict", "pages/verdict.py", "8 · The verdict", "Learn", ":material/gavel:",
         "Galleon vs Dreadnought redone paired, clustered and corrected: which gap is real?"),
    Page("judge", "pages/judge.py", "9 · The judge is an instrument", "Learn", ":material/balance:",
         "An LLM judge's errors bias its number; a few human labels correct it."),
    Page("analyze", "pages/analyze.py", "Analyze your results", "Analyze", ":material/upload_file:",
         "Upload per-question results: is model A really better than B?"),
    Page("reference", "pages/reference.py", "Reference", "Reference", ":material/menu_book:",
         "Recommendations, the cheat sheet of formulas, and how to cite."),
    Page("teach", "pages/teach.py", "Teach this in 90 minutes", "Teach", ":material/school:",
         "A lesson plan: sections, order, timings, questions for the class and the quiz to run."),
)

LEARN: tuple[Page, ...] = tuple(p for p in PAGES if p.section == "Learn")


@dataclass(frozen=True, slots=True)
class TryIt:
    """A chapter's "Try it on data" link: a bundled example opened in the workbench with settings.

    ``settings`` are workbench URL keys (``evalstats_app.workbench.DEFAULTS``) with their URL text;
    ``example`` is a key of the workbench's examples (``CHOICES["analyze_example"]``). Both are only
    strings here, so this table imports nothing; tests/test_page_frame.py checks each against the
    workbench's own DEFAULTS / CHOICES / BOUNDS.
    """

    example: str
    settings: tuple[tuple[str, str], ...]
    reason: str

    def query_params(self) -> dict[str, str]:
        return {"analyze_example": self.example, **dict(self.settings)}


#: One entry per Learn chapter that has a matching example; a chapter without one shows no link.
TRY_IT: dict[str, TryIt] = {
    "problem": TryIt("multilingual", (("analyze_confidence", "0.95"),),
                     "Three models on 2,500 questions: which gaps survive their error bars?"),
    "one_model": TryIt("atlas_breeze", (("analyze_method", "auto"),),
                       "Ten tasks only: see how wide one model's interval is at small n."),
    "clustering": TryIt("multilingual", (("analyze_cluster_se", "cr2"),),
                        "250 source questions asked in 10 languages: the clustered SE against the naive one."),
    "paired": TryIt("atlas_breeze", (("analyze_paired", "1"),),
                    "Two agents on the same ten tasks: the paired difference and its correlation."),
    "resampling": TryIt("synthetic", (("analyze_paired", "1"),),
                        "Every question answered five times: the answers are averaged per question."),
    "temperature": TryIt("synthetic", (("analyze_confidence", "0.95"),),
                         "Five answers per question show the within-question variance that temperature sets."),
    "power": TryIt("multilingual", (("analyze_delta", "2.0"), ("analyze_alpha", "0.05"), ("analyze_power", "0.8")),
                   "Plan the next eval from this one: questions needed to detect a 2-point gap."),
    "verdict": TryIt("multilingual", (("analyze_paired", "1"), ("analyze_cluster_se", "cr2")),
                     "Three models on MGSM-like data: paired differences with standard errors clustered on the source problem."),
    "judge": TryIt("judged", (("analyze_paired", "1"),),
                   "A judge's verdicts on 2,000 questions with a random 15% re-graded by humans: the corrected numbers."),
}


#: A page whose sections moved to another page: a link to ``slug`` carrying one of the moved sections' URL
#: keys opens the page that now holds them, with the link's settings (shell.page_setup forwards it).
#: Chapter 2's second half (calculator and small-N lab) became 2b and kept its ``one_model_*`` keys.
FORWARD: dict[str, tuple[str, tuple[str, ...]]] = {
    "one_model": ("small_n", ("one_model_acc", "one_model_n", "one_model_lab_n", "one_model_uniform",
                              "one_model_theta", "one_model_lab_seed")),
}


def page_by_slug(slug: str) -> Page:
    for page in PAGES:
        if page.slug == slug:
            return page
    raise KeyError(slug)


def neighbours(slug: str) -> tuple[Page | None, Page | None]:
    """The previous and next Learn chapters of ``slug`` (None at either end)."""
    slugs = [p.slug for p in LEARN]
    if slug not in slugs:  # the workbench and the reference are not in the Learn sequence
        return None, None
    i = slugs.index(slug)
    prev = LEARN[i - 1] if i > 0 else None
    nxt = LEARN[i + 1] if i + 1 < len(LEARN) else None
    return prev, nxt


@lru_cache(maxsize=1)
def available() -> tuple[Page, ...]:
    """The pages whose scripts exist (a page under construction is simply not linked yet)."""
    return tuple(p for p in PAGES if (ROOT / p.path).is_file())
