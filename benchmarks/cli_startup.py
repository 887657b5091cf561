"""What a `knowforge` process costs before it does anything: CPU seconds of start-up.

Each case is a fresh interpreter, run ``--repeat`` times; the median of its CPU seconds (user +
system, from the OS, so other work on the machine barely moves it) is printed with its ratio to
the bare interpreter (``python -c pass``) of the same run:

- ``knowforge --help`` and ``knowforge load --help`` (every command group is imported to list it);
- the imports of a graph command (`knowforge generate knowgen ...` before it opens the graph):
  the connection, the workflow, and the help of every method's generate and export command;
- the Neo4j driver as ``import neo4j`` (which imports pandas and pyarrow when installed) against
  ``knowforge.kg.driver`` (without them): the ratio is what every graph command saves.

``--before DIR`` also runs the cases with the ``python`` of another checkout's virtual environment
(e.g. the main branch's, ``/work/main/.venv/bin``) and prints after/before ratios.

    python benchmarks/cli_startup.py [--repeat 5] [--before VENV_BIN]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

GRAPH_COMMAND = ("import knowforge.kg.connection, knowforge.kg.loaders.registry, knowforge.workflow\n"
                 "from click.testing import CliRunner\n"
                 "from knowforge.cli.main import cli\n"
                 "for group in ('generate', 'export'):\n"
                 "    for name in ('knowgen', 'chrono', 'events', 'newterm', 'link'):\n"
                 "        assert CliRunner().invoke(cli, [group, name, '--help']).exit_code == 0\n")
DRIVER_PLAIN = "import neo4j"
DRIVER_OURS = "from knowforge.kg.driver import neo4j"


def cases(bin_dir: Path) -> dict[str, list[str]]:
    python, knowforge = str(bin_dir / "python"), str(bin_dir / "knowforge")
    return {
        "python -c pass": [python, "-c", "pass"],
        "knowforge --help": [knowforge, "--help"],
        "knowforge load --help": [knowforge, "load", "--help"],
        "graph command imports": [python, "-c", GRAPH_COMMAND],
        "import neo4j": [python, "-c", DRIVER_PLAIN],
    }


def cpu_seconds(argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(named: dict[str, list[str]], repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in named}
    for _ in range(repeat):            # interleaved: a change of load hits every case alike
        for name, argv in named.items():
            times[name].append(cpu_seconds(argv))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, default=None, metavar="VENV_BIN",
                        help="the bin folder of another checkout's virtual environment (its python and knowforge)")
    args = parser.parse_args()
    here = Path(sys.executable).parent
    ours = cases(here)
    ours["knowforge.kg.driver"] = [str(here / "python"), "-c", DRIVER_OURS]
    after = measure(ours, args.repeat)
    before = measure(cases(args.before), args.repeat) if args.before else {}
    floor = after["python -c pass"]
    print(f"CPU seconds of start-up, median of {args.repeat} (user + system); x = ratio to python -c pass")
    for name, value in after.items():
        line = f"{name:24s}: {value:6.2f} s  x{value / floor:.1f}"
        if name in before:
            line += f"   before {before[name]:6.2f} s  after/before {value / before[name]:.2f}"
        print(line)
    print(f"ratio import neo4j / knowforge.kg.driver: {after['import neo4j'] / after['knowforge.kg.driver']:.2f}")


if __name__ == "__main__":
    main()
