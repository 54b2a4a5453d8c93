"""The benchmarks start: ``make bench`` runs them as scripts, with ``bench/`` first on the path.

Their figures are not tested here (timing belongs in the benchmarks); only that each one starts
and explains itself.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(path for path in BENCH.glob("*.py") if 'if __name__ == "__main__"' in path.read_text())


def test_bug_a_bench_module_named_platform_shadowed_the_standard_library_and_crashed_make_bench() -> None:
    # bench/platform.py stood in for the standard library's ``platform`` for every script run
    # from bench/: orjson's import then crashed the interpreter (engines.py, tricks.py …).
    modules = {path.stem for path in BENCH.glob("*.py")}
    assert not modules & set(sys.stdlib_module_names)


def test_every_benchmark_script_starts_and_explains_its_options() -> None:
    assert len(SCRIPTS) >= 10, SCRIPTS
    running = {path.name: subprocess.Popen([sys.executable, str(path), "--help"], cwd=BENCH.parent,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for path in SCRIPTS}
    failed = {}
    for name, process in running.items():
        out, err = process.communicate(timeout=120)
        if process.returncode != 0 or "usage:" not in out:
            failed[name] = (process.returncode, err[-500:])
    assert not failed, failed
