"""Chapter 8's sentences against the numbers beside them, with the controls swept to their extremes: the
'changed since chapter 1' line names exactly the evals whose verdict in the table differs from chapter 1's,
the closing sentences quote the intervals of the last analysis, and the MATH sentence its own SEs."""

import itertools
import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_core.lessons import problem, verdict

LABELS = [s.label for s in verdict.STEPS]
CHAPTER_1 = dict(zip(problem.differences()["eval"], problem.differences()["verdict"], strict=True))


def _num(s: str) -> float:
    return float(s.replace("−", "-"))


RHOS = [None, 0.0, 0.05, 0.62, 0.63, 0.95, {"HumanEval": 0.9}, {"MGSM": 0.64}]


def _query(rho):
    if rho is None:
        return {}
    chosen = rho if isinstance(rho, dict) else dict.fromkeys(verdict.PAPER_RHO, rho)
    return {f"verdict_rho_{k.lower()}": repr(v) for k, v in chosen.items()}


@pytest.mark.parametrize(("rho", "label"), list(itertools.product(RHOS, [LABELS[0], LABELS[1], LABELS[-1]])))
def test_no_sentence_contradicts_the_table(rho, label):
    at = run_page("pages/verdict.py", query={**_query(rho), "verdict_step": label})
    no_exceptions(at)
    table = at.table[0].value
    texts = [m.value for m in at.markdown]

    changed = [e for e in table.index if table.loc[e, "Verdict"] != CHAPTER_1[e]]
    line = next(t for t in texts if t.startswith("Changed since chapter 1") or "still chapter 1's" in t)
    if changed:
        assert set(re.findall(r"MATH|HumanEval|MGSM", line)) == set(changed), line
    else:
        assert "every verdict is still chapter 1's" in line
    if label == LABELS[0]:
        assert not changed  # the unpaired step is chapter 1

    # each table interval contains its difference and its verdict agrees with the interval's sign
    for ev in table.index:
        lo, hi = (_num(x) for x in re.findall(r"[−+]?\d+\.\d", table.loc[ev, "Interval"]))
        diff = _num(table.loc[ev, "Diff (pts)"])
        verdict_shown = table.loc[ev, "Verdict"]
        assert lo <= diff <= hi
        if lo > 0:
            assert verdict_shown == "Galleon ahead"
        elif hi < 0:
            assert verdict_shown == "Dreadnought ahead"
        elif lo < 0 < hi:
            assert verdict_shown == "unresolved"

    # the closing sentences: each eval's interval and verdict after the last analysis
    final = verdict.verdict_steps(rho)
    by = final.set_index(["eval", "step"])
    final = final[final["step"] == verdict.STEPS[-1].key].set_index("eval")
    closing = [t for t in texts if t.startswith("- **") or t.startswith("- Only") or t.startswith("- All")
               or t.startswith("- None")]
    assert len(closing) == 4
    for ev, sentence in zip(final.index, closing[:3], strict=True):
        lo, hi = re.search(r"\(([−+]\d+\.\d), ([−+]\d+\.\d)\) points", sentence).groups()
        assert (_num(lo), _num(hi)) == (round(100 * final.loc[ev, "ci_low"], 1), round(100 * final.loc[ev, "ci_high"], 1))
        assert f"**{final.loc[ev, 'verdict']}**" in sentence
        assert ("goes from" in sentence) == (final.loc[ev, "verdict"] != CHAPTER_1[ev])
        if not final.loc[ev, "survives"]:  # unresolved: chapter 7's power, never "noise"
            assert f"have {final.loc[ev, 'power']:.0%} power" in sentence and "noise" not in sentence
    real = [e for e in final.index if final.loc[e, "survives"]]
    if len(real) == 3:
        assert closing[3].startswith("- All three")
    elif not real:
        assert closing[3].startswith("- None")
    else:
        assert set(re.findall(r"MATH|HumanEval|MGSM", closing[3].split(";")[0])) == set(real)

    # the MATH sentence: paired <= unpaired, and equal at rho = 0
    math_line = next(t for t in texts if t.startswith("On MATH"))
    unpaired, paired = (float(x) for x in re.search(r"unpaired SE of the difference is (\d\.\d\d)%.*paired one is (\d\.\d\d)%", math_line).groups())
    math_rho = by.loc[("MATH", "paired"), "rho"]
    assert f"at ρ = {math_rho:.2f} the paired" in math_line
    assert paired <= unpaired and (math_rho > 0 or paired == unpaired)

    # the "what to notice" box: every line is one of the notices built from this state's numbers
    box = next(i.value for i in at.info if i.value.startswith("**What to notice**"))
    assert box.split("\n\n", 1)[1] == "\n".join(f"- {n}" for n in verdict.notices(verdict.verdict_steps(rho)))
    mgsm_paired, mgsm_clustered = by.loc[("MGSM", "paired"), "verdict"], by.loc[("MGSM", "clustered"), "verdict"]
    assert ("turns MGSM" in box) == (mgsm_paired != mgsm_clustered)
    for ev in ("MATH", "HumanEval", "MGSM"):
        v = by.loc[(ev, "small_sample"), "verdict"]
        lo, hi = verdict.rho_range(ev, by.loc[(ev, "small_sample"), "rho"])
        assert f"{ev} is *{v}* for every ρ from {lo:.2f} to {hi:.2f}" in box
        assert lo <= by.loc[(ev, "small_sample"), "rho"] <= hi
