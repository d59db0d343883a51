"""Pairwise files compressed and the cap on models (issue 42): a gzip, bz2, xz, zstd or one-file .zip pairwise file
reads as its plain text does through the results files' bounded reader (the API, the command line and the workbench's
upload); a decompression past the byte budget, a .zip of two files and more models than the cap are each one message
(one stderr line, exit 2, on the command line) naming the limit and the count."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import zipfile

import numpy as np
import pytest
import zstandard
from conftest import ROOT, no_exceptions
from test_page_pairwise import _page

from evalstats_app.workbench_pairwise import LAST_PAIRWISE_KEY
from evalstats_core.cli import main
from evalstats_core.errors import EvalStatsError
from evalstats_core.limits import Limits
from evalstats_core.pairwise import pairwise_analysis, simulate_battles
from evalstats_core.pairwise_data import MAX_MODELS, file_kind, join_battles, load_battles, read_battles

EXAMPLE = ROOT / "examples" / "pairwise_battles.tsv"
PLAIN = EXAMPLE.read_bytes()


def _zip(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(name, data)
    return buf.getvalue()


PACKED = {"battles.tsv.gz": gzip.compress(PLAIN), "battles.tsv.bz2": bz2.compress(PLAIN),
          "battles.tsv.xz": lzma.compress(PLAIN), "battles.tsv.zst": zstandard.ZstdCompressor().compress(PLAIN),
          "battles.zip": _zip("battles.tsv", PLAIN)}


def _fields(b) -> tuple:
    return b.prompts, b.model_a, b.model_b, b.outcome, b.kind


@pytest.mark.parametrize("name", list(PACKED))
def test_a_compressed_file_reads_as_its_plain_text(name, tmp_path, capsys):
    """The same battles from the bytes (read_battles) and from disk (load_battles), and the same JSON report from
    evalbars pairwise as the plain file's; the sniff sees a pairwise file."""
    data = PACKED[name]
    assert data != PLAIN and file_kind(data, name) == "long" and file_kind(PLAIN, "b.tsv") == "long"
    plain = read_battles(PLAIN, "battles.tsv")
    assert _fields(read_battles(data, name)) == _fields(plain)
    path = tmp_path / name
    path.write_bytes(data)
    assert _fields(load_battles([path])) == _fields(plain)
    assert main(["pairwise", str(EXAMPLE), "-f", "json", "--n-boot", "0"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert main(["pairwise", str(path), "-f", "json", "--n-boot", "0"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["ratings"] == want["ratings"] and got["win_rates"] == want["win_rates"]


def test_the_workbench_reads_a_gzip_upload():
    """battles.tsv.gz uploaded: the page's analysis is the plain file's (ratings and win rates, number for number)."""
    at = _page("battles.tsv.gz", PACKED["battles.tsv.gz"])
    shown = at.session_state[LAST_PAIRWISE_KEY]
    api = pairwise_analysis(read_battles(PLAIN, "battles.tsv"), n_boot=shown.n_boot, seed=shown.seed)
    page, want = shown.to_dict(), api.to_dict()
    for key in ("ratings", "win_rates", "separation", "battles", "prompts"):
        assert page[key] == want[key], key


def test_past_the_byte_budget_and_two_files_in_a_zip_are_one_message(tmp_path, capsys):
    bomb = gzip.compress(b"prompt\tmodel_a\tmodel_b\twinner\n" + b"p\tA\tB\ta\n" * 400_000)  # 3.6 MB of text
    with pytest.raises(EvalStatsError, match=r"b\.tsv\.gz decompresses to more than the limit of 1 MB"):
        read_battles(bomb, "b.tsv.gz", limits=Limits(max_bytes=2**20))
    path = tmp_path / "b.tsv.gz"
    path.write_bytes(bomb)
    assert main(["pairwise", str(path), "--max-mb", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "decompresses to more than the limit of 1 MB" in err, err
    two = io.BytesIO()
    with zipfile.ZipFile(two, "w") as zf:
        zf.writestr("a.tsv", PLAIN)
        zf.writestr("b.tsv", PLAIN)
    with pytest.raises(EvalStatsError, match="is a zip archive with 2 files"):
        read_battles(two.getvalue(), "two.zip")


def test_more_models_than_the_cap_are_refused_naming_the_limit_and_the_count(tmp_path, capsys):
    """MAX_MODELS + 1 models: refused by the reader (API) and the command line (exit 2, one line), which names the
    count and the limit; --max-models raises it; the example's 4 models under --max-models 3 are refused too."""
    many = simulate_battles(np.zeros(MAX_MODELS + 1), n_prompts=60, per_prompt=100, rng=1)
    assert len(many.models) == MAX_MODELS + 1
    words = f"has battles among {MAX_MODELS + 1:,} models, more than the limit of {MAX_MODELS:,} models"
    with pytest.raises(EvalStatsError, match=words):
        join_battles([many])
    assert join_battles([many], max_models=MAX_MODELS + 1) is many
    path = tmp_path / "many.csv"
    path.write_text("prompt,model_a,model_b,winner\n" + "".join(
        f"{p},{a},{b},{'a' if y == 1 else 'b' if y == 0 else 'tie'}\n"
        for p, a, b, y in zip(many.prompts, many.model_a, many.model_b, many.outcome, strict=True)))
    assert main(["pairwise", str(path), "--n-boot", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "--max-models" in err, err
    assert main(["pairwise", str(EXAMPLE), "--max-models", "3", "--n-boot", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "among 4 models, more than the limit of 3 models" in err, err


def test_the_workbench_refuses_too_many_models_in_one_error():
    many = simulate_battles(np.zeros(MAX_MODELS + 1), n_prompts=60, per_prompt=100, rng=1)
    text = "prompt,model_a,model_b,winner\n" + "".join(
        f"{p},{a},{b},{'a' if y == 1 else 'b'}\n"
        for p, a, b, y in zip(many.prompts, many.model_a, many.model_b, many.outcome, strict=True))
    at = _page("many.csv", text.encode())
    no_exceptions(at)
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 1 and f"more than the limit of {MAX_MODELS:,} models" in errors[0], errors
