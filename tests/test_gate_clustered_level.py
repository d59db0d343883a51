"""With clusters a pass needs the 96% interval's lower end above -margin (issue 20, gate14).

CR2 with Satterthwaite df (equal to clubSandwich) passed 2.6-2.9% of files whose true drop was the margin on its
95% end alone (clustered scores that are not 0/1, 4 to 160 clusters; bench/bench_gate14_clusters.py), against the
2.5% a non-inferiority test at that level promises. The gate now also needs the lower end of the interval at
one-sided ``CLUSTERED_PASS_SHARE * 2.5% = 2%``; these tests hold that end against scipy's t quantile, the verdict
and the sentences against the numbers beside them on every surface (API, CLI, DuckDB), the rule's reach (the CR2 t
interval only), and its false-pass rate by simulation on the held-out audit's 40-cluster design.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import evalstats_core as es
from evalstats_core.cli import main
from evalstats_core.gating import CLUSTERED_PASS_SHARE
from evalstats_core.report import escape_markdown

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
_spec = importlib.util.spec_from_file_location("bench_gate14_clusters", ROOT / "bench" / "bench_gate14_clusters.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
audit = sys.modules["audit_heldout"]

pytestmark = pytest.mark.filterwarnings("ignore::evalstats_core.EvalStatsWarning")

AUDIT = bench.DESIGNS[0]  # K = 3 runs, 40 conversation clusters of 3-21 questions, baseline 60%, margin 4 points


def _file(seed: int = 3):
    """One file of the audit's 40-cluster design (the candidate 4 points worse in truth), as a data frame."""
    rng = np.random.default_rng(seed)
    sizes = AUDIT[1]
    a, b = audit.latent(rng, 1, sizes, AUDIT[2] - AUDIT[3], AUDIT[2], *AUDIT[4:])
    return audit.frame(a[0], b[0], audit.labels_of(sizes))


def _between(data) -> tuple[float, es.GateResult]:
    """A margin between the 96% interval's lower end and the 95% one (so only the stricter end holds the pass
    back), and the gate at margin 0 that found them."""
    g0 = es.gate(data, baseline="B", candidate="A", margin=0.0)
    assert g0.pass_low < g0.ci_low < 0.0
    return -(g0.ci_low + g0.pass_low) / 2.0, g0


def test_the_stricter_end_is_the_t_quantile_at_one_sided_two_percent():
    g = es.gate(es.load(_file()), baseline="B", candidate="A", margin="4pt")
    assert g.n_clusters == 40 and g.interval == "CR2 t (Satterthwaite df)"
    assert g.pass_confidence == pytest.approx(0.96, abs=1e-15) and CLUSTERED_PASS_SHARE == 0.8
    assert g.pass_low == pytest.approx(g.diff - stats.t.ppf(0.98, g.df) * g.se, rel=1e-12)
    assert g.ci_low == pytest.approx(g.diff - stats.t.ppf(0.975, g.df) * g.se, rel=1e-12)
    g90 = es.gate(es.load(_file()), baseline="B", candidate="A", margin="4pt", confidence=0.9)
    assert g90.pass_confidence == pytest.approx(0.92, abs=1e-15)
    assert g90.pass_low == pytest.approx(g90.diff - stats.t.ppf(0.96, g90.df) * g90.se, rel=1e-12)


def test_a_clustered_pass_on_the_95_percent_end_alone_is_inconclusive_and_says_why():
    data = es.load(_file())
    m, g0 = _between(data)
    g = es.gate(data, baseline="B", candidate="A", margin=m)
    assert g.ci_low > -m >= g.pass_low  # the 95% end clears the margin, the 96% end does not
    assert (g.verdict, g.exit_code, g.held_at_pass_level) == ("inconclusive", 3, True)
    assert g.n_needed is not None and g.n_needed > g.n_clusters  # more clusters would tell
    reason = g.reason()
    digits = g._digits(-m, g.ci_low, g.pass_low)
    lo, bound, plo = (f"{100 * x:+.{digits}f} points" for x in (g.ci_low, -m, g.pass_low))
    assert reason == (f"INCONCLUSIVE (exit 3): the 95% interval's lower end, {lo}, is above {bound} (minus the "
                      f"margin), but with clusters a pass needs the 96% interval's lower end above it, and that is "
                      f"{plo}, so the data can rule out neither a drop beyond the margin nor no drop.")
    assert lo != bound != plo  # enough digits to tell the three apart
    head = g.headline()
    assert head.startswith("INCONCLUSIVE: the data cannot tell whether A is worse than B")
    assert "With clusters a pass needs the 96% interval's lower end above" in head
    assert "passed up to 2.9% of files whose true drop was the margin" in head and "above the 2.5% the gate" in head
    assert f"About {math.ceil(g.n_needed):,} clusters like these" in head
    md = g.markdown()
    assert f"96% CI lower end {100 * g.pass_low:+.2f} points (with clusters a pass needs it above " in md
    # a margin past the 96% end passes, and the sentence names both ends
    wide = es.gate(data, baseline="B", candidate="A", margin=-g0.pass_low + 1e-4)
    assert (wide.verdict, wide.exit_code, wide.held_at_pass_level) == ("pass", 0, False)
    assert "and the 96% interval's, " in wide.reason() and "which a pass needs with clusters, are above" in wide.reason()


def test_the_command_line_and_duckdb_decide_and_say_the_same(tmp_path, capsys):
    frame = _file()
    path = tmp_path / "conversations.csv"
    frame.to_csv(path, index=False)
    m, _ = _between(es.load(frame))
    api = es.gate(es.load(str(path)), baseline="B", candidate="A", margin=m)
    assert api.held_at_pass_level
    outs = []
    for engine in ("memory", "duckdb"):
        code = main(["gate", str(path), "--baseline", "B", "--candidate", "A", "--margin", repr(m), "--engine", engine])
        out, err = capsys.readouterr()
        assert code == 3, err
        assert "with clusters a pass needs the 96% interval's lower end above it, and that is" in out
        outs.append(out)
    assert outs[0].splitlines()[:12] == outs[1].splitlines()[:12]  # the same summary, whichever engine read it
    assert escape_markdown(api.reason()) in outs[0]  # the API's sentence, as the Markdown summary escapes it
    sums = es.gate(es.sums_of(str(path)), baseline="B", candidate="A", margin=m)
    assert sums.verdict == "inconclusive" and sums.pass_low == pytest.approx(api.pass_low, rel=1e-12, abs=1e-15)


def test_the_rule_reads_only_the_clustered_cr2_t_interval(tmp_path):
    frame = _file()
    clustered = es.load(frame)
    assert es.gate(clustered, baseline="B", candidate="A", margin="4pt", use_clusters=False).pass_low is None
    assert es.gate(clustered, baseline="B", candidate="A", margin="4pt", method="cr1").pass_low is None
    plain = es.load(frame.drop(columns="cluster"))
    g = es.gate(plain, baseline="B", candidate="A", margin="4pt")
    assert g.pass_confidence is None and g.pass_low is None and not g.held_at_pass_level
    binary = es.gate(es.load(str(ROOT / "examples" / "multilingual_clustered.csv")), baseline="Galleon",
                     candidate="Frigate", margin="2pt")
    # issue 45: this clustered 0/1 pair (many disagreements spread over its clusters) is read on CR2 t by the 0/1
    # rule (it was Tango on effective counts, with no stricter end), so its gate needs the 96% end like any CR2 t
    assert binary.n_clusters is not None and binary.interval == "CR2 t (Satterthwaite df)"
    assert binary.pass_confidence == pytest.approx(0.96) and binary.pass_low is not None


def test_the_false_pass_at_the_audits_40_cluster_design_is_within_its_level():
    """20,000 seeded files at truth = -margin, the gate's rule vectorised (held against es.gate file by file on 27
    files of all nine designs first): the rule alone of 6d11319 passes above 2.5%, the gate at or below it."""
    rng = np.random.default_rng(20)
    assert bench.check(rng, 3) == 0
    consts = bench.rules(AUDIT)
    n = int(np.sum(AUDIT[1]))
    counts = np.zeros(2)
    for dbar, se, s_g, _, _ in bench.files(rng, 20_000, AUDIT, -1.0):
        old, gate, _, _ = bench.verdicts(dbar, se, s_g, n, AUDIT[3], consts)
        counts += old.sum(), gate.sum()
    old, gate = counts / 20_000
    assert gate <= 0.025 < old  # MC SE 0.11 points: gate about 2.1%, the old rule about 2.6%
    assert old - gate > 0.003


# ---------------------------------------------------------------------------------------------- two clusters
TWO = (300, 60)  # one cluster five times the other


def _two_cluster_file(seed: int = 5, row: int = 24):
    """A seeded two-cluster file (the candidate 4 points better in truth) whose 95% and 96% ends both clear a
    4-point margin."""
    rng = np.random.default_rng(seed)
    a, b = audit.latent(rng, row + 1, TWO, 0.84, 0.8, 0.2, 0.6, 0.5, 0.7, "partial")
    return audit.frame(a[row], b[row], audit.labels_of(TWO))


def test_two_clusters_never_pass_and_the_summary_says_why(tmp_path, capsys):
    from evalstats_core.gating import TWO_CLUSTERS

    frame = _two_cluster_file()
    g = es.gate(es.load(frame, cluster_col="cluster"), baseline="B", candidate="A", margin="4pt")
    assert g.n_clusters == 2 and g.interval == "CR2 t (Satterthwaite df)"
    assert g.ci_low > g.pass_low > -0.04  # both ends clear the margin
    assert (g.verdict, g.exit_code, g.two_clusters, g.n_needed) == ("inconclusive", 3, TWO_CLUSTERS, None)
    assert not g.held_at_pass_level
    assert g.reason() == (f"INCONCLUSIVE (exit 3): the 95% interval's lower end, {100 * g.ci_low:+.1f} points, is "
                          f"above -4.0 points (minus the margin), but {TWO_CLUSTERS}.")
    assert g.headline().endswith("a pass needs 3 clusters or more.") and "would tell" not in g.headline()
    path = tmp_path / "two.csv"
    frame.to_csv(path, index=False)
    code = main(["gate", str(path), "--baseline", "B", "--candidate", "A", "--margin", "4pt", "--cluster-col", "cluster"])
    out, _ = capsys.readouterr()
    assert code == 3 and escape_markdown(g.reason()) in out
    # three clusters: the rule stays the 96% end (a file of three clusters passes where both ends clear the margin)
    three = frame.assign(cluster=np.where(np.arange(len(frame)) % 7 == 0, "c2", frame["cluster"]))
    g3 = es.gate(es.load(three, cluster_col="cluster"), baseline="B", candidate="A", margin="4pt")
    assert g3.n_clusters == 3 and g3.two_clusters is None
    assert g3.pass_low > -0.04 and (g3.verdict, g3.exit_code) == ("pass", 0)


def test_on_two_unequal_clusters_the_95_percent_end_alone_passes_too_often_and_the_gate_never():
    """4,000 seeded files at truth = -margin through es.gate: CR2's 95% end clears the margin in more than 2.5% of
    them (3.1-3.3% in 8,000-20,000 files), the gate in none."""
    rng = np.random.default_rng(99)
    a, b = audit.latent(rng, 4000, TWO, 0.76, 0.8, 0.2, 0.6, 0.5, 0.7, "partial")
    lab = audit.labels_of(TWO)
    ends = passes = 0
    for r in range(a.shape[0]):
        g = es.gate(es.load(audit.frame(a[r], b[r], lab), cluster_col="cluster"), baseline="B", candidate="A", margin=0.04)
        ends += g.interval.startswith("CR2") and g.ci_low > -0.04
        passes += g.verdict == "pass"
    assert ends / a.shape[0] > 0.025 and passes == 0
