"""Chapter 4's sentences against the numbers beside them, with the controls swept to their extremes: the
deviation-products sentence quotes the table's last row and counts its negative products; McNemar's
sentences quote the table's share and call z² 'next to' chi² only when they are within 5%; the leaderboard
example quotes seed 000's interval."""

import itertools
import re

import pytest
from conftest import no_exceptions, run_page

CELLS = [(3000, 275, 150, 1575), (0, 0, 0, 0), (1, 3, 0, 1), (0, 5, 5, 0), (10, 0, 40, 10), (100_000, 1, 2, 100_000)]


def _texts(at):
    return [m.value for m in at.markdown] + [i.value for i in at.info] + [w.value for w in at.warning]


@pytest.mark.parametrize(("partner", "rects"), list(itertools.product(["Breeze", "Atlas"], [True, False])))
def test_deviation_products_sentence(partner, rects):
    at = run_page("pages/paired.py", query={"paired_y": partner, "paired_rects": "1" if rects else "0"})
    no_exceptions(at)
    table = next(t.value for t in at.table if "Product" in t.value.columns)
    products = [float(v.replace("−", "-")) for v in table["Product"]]
    rows, last = products[:-2], products[-1]
    assert abs(sum(rows) - products[-2]) < 1e-3 and abs(products[-2] / 9 - last) < 1e-4
    sentence = next(t for t in _texts(at) if "sum over $n - 1$" in t)
    assert f"{last:.4f}" in sentence
    negative = sum(v < 0 for v in rows)
    if partner == "Atlas":
        assert negative == 0 and "**variance**" in sentence and "none is negative" in sentence
    else:
        assert "**covariance**" in sentence and re.search(rf"\b{negative} of the 10 products", sentence)
    notice = next(t for t in _texts(at) if "of the 10 rectangles are blue" in t)
    breeze = run_page("pages/paired.py", query={"paired_y": "Breeze"}) if partner == "Atlas" else at
    shown = next(t.value for t in breeze.table if "Product" in t.value.columns)["Product"]
    positive = sum(float(v.replace("−", "-")) > 0 for v in list(shown)[:-2])
    assert f"Against Breeze, {positive} of the 10 rectangles are blue" in notice

    # the formula column beside the scatter follows the partner (it showed Atlas vs Breeze in squares mode)
    latex = " ".join(e.value for e in at.latex)
    if partner == "Atlas":
        assert r"\mathrm{Var}(a) = " + f"{last:.4f}" in latex and "= 1" in latex and "&= 0" in latex
        assert r"\mathrm{Cov}(a, b)" not in latex
    else:
        cov = next(e.value for e in at.latex if r"\mathrm{Cov}(a, b) = " in e.value)
        assert cov.strip("$\n ").endswith(f"= {last:.4f}") and r"\mathrm{Var}(a)" not in latex


@pytest.mark.parametrize("cells", CELLS)
def test_mcnemar_sentences_match_the_cells(cells):
    keys = ["paired_both", "paired_only_a", "paired_only_b", "paired_neither"]
    at = run_page("pages/paired.py", query=dict(zip(keys, map(str, cells), strict=True)))
    no_exceptions(at)
    a, b, c, d = cells
    n = sum(cells)
    texts = _texts(at)
    if n == 0:
        assert any("The table is empty" in t for t in texts)
        return
    share = (b + c) / n
    notice = next(t for t in texts if "discordant questions carry the evidence" in t)
    assert f"Only the {b + c:,} discordant questions" in notice and f"{share:.1%} of the {n:,}" in notice
    assert ("a small share" in notice) == (share < 0.2) and ("a large share" in notice) == (share > 0.5)
    metric = {m.label: m.value for m in at.metric}
    chi2, z2 = metric["McNemar χ²"], metric["Paired z² on the same answers"]
    if "undefined" in (chi2, z2) or float(chi2) == 0:
        assert "lands next to" not in notice and "differs from" not in notice
    else:
        close = abs(float(z2) - float(chi2)) / float(chi2) < 0.05
        assert ("lands next to" in notice) == close or abs(abs(float(z2) - float(chi2)) / float(chi2) - 0.05) < 0.01
        assert ("differs from" in notice) != ("lands next to" in notice)


def test_leaderboard_example_is_seed_000s():
    at = run_page("pages/paired.py")
    text = " ".join(_texts(at)) + " ".join(x.value for x in at.latex)
    assert "= 0.96\\%" in text and "= 0.68\\%" in text
    assert "to (+1.2, +3.8) points" in text and "from (+0.6, +4.4)" in text
