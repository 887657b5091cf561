"""Where the test suite's time goes, file by file, against a time budget per file.

Reads what a pytest run leaves (its JUnit XML, ``--junitxml``, or the ``--durations=0`` lines
of its output; several files add up, e.g. one per xdist run), sums the seconds of each test
file (setup, call and teardown together) and prints them against ``benchmarks/suite_budget.json``:

    python benchmarks/suite_profile.py .pytest-junit.xml
    python benchmarks/suite_profile.py pytest-output.txt --top 20
    python benchmarks/suite_profile.py .pytest-junit.xml --write-budget   # after a deliberate change

A file *grew* when its time, scaled by the ratio of the whole run to the whole budget (a busy
or slower machine makes every file slower by about the same factor), exceeds its budget by
more than ``--tolerance`` (default 1.5x) and by more than ``--floor`` seconds. Those files are
named at the end, with files absent from the budget (new) and budgeted files that did not run.
Nothing here asserts: the exit status is 0 unless ``--strict`` is given and a file grew.

The budget is measured, not guessed: ``--write-budget`` writes each file's time times
``--headroom`` (default 1.25), with the total it was measured at and where.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

BUDGET = Path(__file__).resolve().parent / "suite_budget.json"

# `--durations` lines: "12.34s call     tests/test_x.py::test_y[param]"
DURATION = re.compile(r"^\s*(?P<s>[0-9]+(?:\.[0-9]+)?)s (?P<phase>setup|call|teardown)\s+(?P<id>\S.*?)\s*$")


@dataclass
class Profile:
    files: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    tests: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def count(self, name: str) -> int:
        return sum(file_of(t) == name for t in self.tests)

    @property
    def total(self) -> float:
        return sum(self.files.values())


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def junit_nodeid(case: ET.Element) -> str:
    """pytest writes classname "tests.test_x" (or "tests.test_x.TestClass") and name "test_y[p]";
    a module skipped whole (an optional dependency absent) has no classname and the module as its
    name, which would otherwise count as a file called ".py"."""
    if not case.get("classname"):
        return "/".join((case.get("name") or "").split(".")) + ".py"
    parts = case.get("classname").split(".")
    # the module is the last dotted part that starts with "test"; a class may follow it
    at = max((i for i, p in enumerate(parts) if p.startswith("test")), default=len(parts) - 1)
    path = "/".join(parts[:at + 1]) + ".py"
    return "::".join([path, *parts[at + 1:], case.get("name") or ""])


def read(path: Path, profile: Profile) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    if text.lstrip().startswith("<"):
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            raise SystemExit(f"{path}: not a JUnit XML file ({exc})") from exc
        cases = list(root.iter("testcase"))
        if not cases:
            raise SystemExit(f"{path}: a JUnit XML file with no <testcase>")
        for case in cases:
            nodeid = junit_nodeid(case)
            seconds = float(case.get("time") or 0.0)
            profile.tests[nodeid] += seconds
            profile.files[file_of(nodeid)] += seconds
        return
    seen = 0
    for line in text.splitlines():
        match = DURATION.match(line)
        if not match:
            continue
        seen += 1
        nodeid, seconds = match["id"], float(match["s"])
        profile.tests[nodeid] += seconds
        profile.files[file_of(nodeid)] += seconds
    if not seen:
        raise SystemExit(f"{path}: neither JUnit XML nor pytest --durations lines "
                         "(run pytest with --durations=0 or --junitxml=FILE)")


def load_budget(path: Path) -> dict:
    if not path.exists():
        return {"files": {}}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data.get("files"), dict):
        raise SystemExit(f"{path}: no \"files\" object of file -> seconds")
    return data


def compare(profile: Profile, budget_path: Path = BUDGET, *, tolerance: float = 1.5, floor: float = 10.0,
            top: int = 10) -> tuple[list[str], list[str]]:
    """The report's lines, and the files that grew."""
    planned = load_budget(budget_path)["files"]
    known = [f for f in profile.files if f in planned]
    # the machine's speed relative to the budget's, from the files both know
    measured = sum(profile.files[f] for f in known)
    scale = sum(planned[f] for f in known) / measured if measured else 1.0
    out = [f"{len(profile.tests):,} tests in {len(profile.files)} files, {profile.total:,.0f} s of test time "
           f"(summed over tests; with xdist the wall time is less)"]
    if planned:
        out.append(f"budget {budget_path.name}: {sum(planned.values()):,.0f} s for {len(planned)} files; "
                   f"this run scaled x{scale:.2f} to the budget's machine")
    out.append(f"\n{'seconds':>8} {'budget':>8} {'scaled':>7} {'tests':>5}  file")
    grew, new = [], []
    for name, seconds in sorted(profile.files.items(), key=lambda kv: -kv[1]):
        limit = planned.get(name)
        scaled = seconds * scale
        mark = ""
        if limit is None:
            new.append(name)
            mark = "  NEW"
        elif scaled > limit * tolerance and scaled - limit > floor:
            grew.append(name)
            mark = "  GREW"
        shown = f"{limit:8.1f} {scaled / limit:6.2f}x" if limit else f"{'-':>8} {'-':>7}"
        out.append(f"{seconds:8.1f} {shown} {profile.count(name):5d}  {name}{mark}")
    if top:
        out.append(f"\nslowest {top} tests:")
        for nodeid, seconds in sorted(profile.tests.items(), key=lambda kv: -kv[1])[:top]:
            out.append(f"{seconds:8.1f}  {nodeid}")
    out.append("")
    for name in grew:
        out.append(f"GREW: {name}: {profile.files[name] * scale:,.0f} s (scaled) against a budget of "
                   f"{planned[name]:,.0f} s")
    if not planned:
        out.append(f"no budget yet ({budget_path} is absent or empty): write it from a full run's JUnit XML "
                   "with benchmarks/suite_profile.py FILE --write-budget")
    for name in new if planned else ():
        out.append(f"NEW: {name}: not in {budget_path.name} (add it with --write-budget after a full run)")
    gone = sorted(set(planned) - set(profile.files))
    if gone:
        out.append(f"not run: {', '.join(gone)}")
    if not grew:
        out.append("no file grew beyond its budget")
    return out, grew


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path, help="JUnit XML files or pytest outputs with --durations lines")
    ap.add_argument("--budget", type=Path, default=BUDGET)
    ap.add_argument("--tolerance", type=float, default=1.5, help="grew: scaled time > budget x this")
    ap.add_argument("--floor", type=float, default=10.0, help="and more than this many seconds over")
    ap.add_argument("--top", type=int, default=10, help="also print the N slowest tests")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a file grew")
    ap.add_argument("--write-budget", action="store_true", help="write the budget from these inputs")
    ap.add_argument("--headroom", type=float, default=1.25, help="budget = measured x this (--write-budget)")
    ap.add_argument("--note", default="", help="where and how the budget was measured (--write-budget)")
    args = ap.parse_args(argv)
    for path in args.inputs:
        if not path.is_file():
            ap.error(f"{path}: no such file")
    if args.tolerance < 1 or args.headroom < 1:
        ap.error("--tolerance and --headroom must be at least 1")

    profile = Profile()
    for path in args.inputs:
        read(path, profile)

    if args.write_budget:
        files = {f: round(s * args.headroom, 1) for f, s in sorted(profile.files.items())}
        args.budget.write_text(json.dumps({
            "note": args.note or "seconds per test file (setup + call + teardown) x headroom",
            "headroom": args.headroom, "measured_total_s": round(profile.total, 1),
            "tests": len(profile.tests), "files": files}, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.budget}: {len(files)} files, measured total {profile.total:,.0f} s")
        return 0

    lines, grew = compare(profile, args.budget, tolerance=args.tolerance, floor=args.floor, top=args.top)
    print("\n".join(lines))
    return 1 if grew and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
