"""Typed views against JSON on the whole server, both at once: two runs of ``bench/tablegen.py``
side by side, each with its own server, load generator and ledger, one whose players ask for
typed views and events (the default) and one whose players ask for JSON (``--json-views``).

Run one after the other, the two forms meet different moments of a shared machine, whose load
moves the server's CPU per action by more than the forms differ; run at once, they meet the same
moments, so the ratio of the two is steady from pair to pair. Prints each pair's server CPU per
action, the load generator's, and the ratio typed / JSON.

Run: ``PYTHONPATH=services .venv/bin/python bench/forms_at_once.py [--pairs 3] [--tables 50]
[--think-ms 500] [--seconds 30] [-- any other tablegen.py options]``. The two runs use two
databases of one Redis (``--redis-url``'s, and the one below it, or above 0), so the Redis figures each
prints are of both.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

TABLEGEN = Path(__file__).with_name("tablegen.py")
ROUND = re.compile(r"round \d+:.*?server CPU\s+([\d,]+) µs/action.*?load generator ([\d,]+) µs/action")


def figures(output: str) -> tuple[int, int]:
    """The server's and the load generator's CPU per action from a tablegen run's output."""
    found = ROUND.search(output.replace("\r", "\n"))
    if found is None:
        raise SystemExit(f"no round line in tablegen's output:\n{output[-2000:]}")
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


def pair(args: argparse.Namespace, extra: list[str]) -> dict[str, tuple[int, int]]:
    """One typed run and one JSON run at once."""
    base, _, db = args.redis_url.rpartition("/")
    other_db = int(db) - 1 if int(db) > 0 else int(db) + 1
    common = [sys.executable, str(TABLEGEN), "--tables", str(args.tables), "--think-ms", str(args.think_ms),
              "--seconds", str(args.seconds), "--warmup", str(args.warmup), *extra]
    runs = {
        "typed": subprocess.Popen([*common, "--redis-url", args.redis_url], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True),
        "json": subprocess.Popen([*common, "--redis-url", f"{base}/{other_db}", "--json-views"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
    }
    outputs = {form: run.communicate()[0] for form, run in runs.items()}
    for form, run in runs.items():
        if run.returncode:
            raise SystemExit(f"the {form} run failed ({run.returncode}):\n{outputs[form][-2000:]}")
    return {form: figures(output) for form, output in outputs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3, help="pairs of runs (default 3)")
    parser.add_argument("--tables", type=int, default=50, help="tables per run (default 50)")
    parser.add_argument("--think-ms", type=int, default=500, help="players' mean thought (default 500)")
    parser.add_argument("--seconds", type=int, default=30, help="measured seconds per run (default 30)")
    parser.add_argument("--warmup", type=int, default=5, help="seconds of play before measuring (default 5)")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14",
                        help="the typed run's Redis; the JSON run takes the database below it (above 0)")
    args, extra = parser.parse_known_args()
    extra = [arg for arg in extra if arg != "--"]
    ratios = []
    for number in range(1, args.pairs + 1):
        print(f"pair {number}/{args.pairs}: {args.seconds + args.warmup} s and the runs' setup …", flush=True)
        result = pair(args, extra)
        (typed, typed_load), (json, json_load) = result["typed"], result["json"]
        ratios.append(typed / json)
        print(f"pair {number}: server CPU per action typed {typed:,} µs, JSON {json:,} µs "
              f"(typed / JSON {typed / json:.3f}, {typed - json:+,} µs) · load generator {typed_load:,} / {json_load:,} µs",
              flush=True)
    print(f"typed / JSON over {len(ratios)} pairs: median {statistics.median(ratios):.3f}, "
          f"from {min(ratios):.3f} to {max(ratios):.3f}")


if __name__ == "__main__":
    main()
