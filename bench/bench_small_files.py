"""Small files at the floor (issue 44.1): ``evalbars analyze`` and ``evalbars gate`` on small CSVs as they are written,
against ``python -c "import numpy, scipy.special"`` timed in the same run.

Files (written to a temporary folder, seeded): 1,000 questions x 2 models unquoted; the same with a quoted header and
quoted text cells (pyarrow's ``write_csv``, R's ``write.csv``); the quoted one with CRLF line ends behind a
byte-order mark; and 12 rows with 2 clusters. Each command runs as a fresh process (``python -m evalstats_core``
from this tree), alternating with the floor, ``--repeat`` rounds; the CPU time (user + system of the child, which
load from other processes on a shared machine does not add to) of the fastest round is printed with its ratio to
the floor's fastest, and the heavy modules the run imported (pandas, pyarrow, scipy.stats, scipy.optimize).

    .venv/bin/python bench/bench_small_files.py [--repeat 7]

The target: at most 1.5 x the floor on each file. Not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOOR = [sys.executable, "-c", "import numpy, scipy.special"]
PROBE = ("import sys; from evalstats_core.cli import exit_now, main; code = main(sys.argv[1:]); "
         "print('HEAVY', *sorted(m for m in ('pandas', 'pyarrow', 'scipy.stats', 'scipy.optimize') if m in sys.modules), "
         "file=sys.stderr); exit_now(code)")  # what `python -m evalstats_core` runs, and the modules it imported


def files(folder: Path) -> dict[str, Path]:
    rng = random.Random(44)
    rows = [(f"q{i}", m, int(rng.random() < 0.6 + 0.05 * (m == "B"))) for i in range(1000) for m in ("A", "B")]
    plain = "question,model,score\n" + "".join(f"{q},{m},{s}\n" for q, m, s in rows)
    quoted = '"question","model","score"\n' + "".join(f'"{q}","{m}",{s}\n' for q, m, s in rows)
    small = [(f"q{i}", m, int(rng.random() < 0.6), f"c{i // 3}") for i in range(6) for m in ("A", "B")]
    twelve = "question,model,score,cluster\n" + "".join(",".join(map(str, r)) + "\n" for r in small)
    out = {}
    for name, data in (("unquoted", plain.encode()), ("quoted", quoted.encode()),
                       ("quoted_crlf_bom", b"\xef\xbb\xbf" + quoted.replace("\n", "\r\n").encode()),
                       ("twelve_rows_2_clusters", twelve.encode())):
        out[name] = folder / f"{name}.csv"
        out[name].write_bytes(data)
    return out


def child_cpu(cmd: list[str]) -> tuple[float, str]:
    """User + system CPU seconds of one run of ``cmd`` (a child process), and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(cmd[3:])}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        paths = files(Path(tmp))
        commands = {}
        for name, path in paths.items():
            commands[f"analyze {name}"] = [sys.executable, "-c", PROBE, "analyze", str(path)]
            commands[f"gate {name}"] = [sys.executable, "-c", PROBE, "gate", str(path), "--baseline", "A",
                                        "--candidate", "B", "--margin", "2pt"]
        best = {k: float("inf") for k in ["floor", *commands]}
        heavy = {}
        for _ in range(args.repeat):
            for key, cmd in commands.items():
                best["floor"] = min(best["floor"], child_cpu(FLOOR)[0])
                cpu, err = child_cpu(cmd)
                best[key] = min(best[key], cpu)
                heavy[key] = next((line[6:] for line in err.splitlines() if line.startswith("HEAVY")), "?").strip()
    floor = best["floor"]
    print(f"floor: python -c 'import numpy, scipy.special': {floor * 1000:.0f} ms CPU (fastest of "
          f"{args.repeat * len(commands)}; load average {os.getloadavg()[0]:.1f})")
    print(f"{'command':<36} {'CPU ms':>7} {'x floor':>8}  heavy modules imported")
    for key in commands:
        print(f"{key:<36} {best[key] * 1000:>7.0f} {best[key] / floor:>8.2f}  {heavy[key] or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
