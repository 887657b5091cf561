"""Write the NewTerm sample: ``newterm_2022/``, a slice of the NewTerm 2022 release.

NewTerm (Deng et al., NeurIPS 2024 Datasets and Benchmarks, https://github.com/hexuandeng/NewTerm)
is licensed CC BY 4.0; ``newterm_2022/README.md`` carries the attribution and says what was
changed (only which lines are kept).

The slice: the first ``PER_CATEGORY`` terms of each category of ``new_terms.jsonl`` (in file
order) that have an item in each of the human-filtered files ``COMA_clean``, ``COST_clean``
and ``CSJ_clean``; their ``new_terms.jsonl`` lines and their lines of those three files,
copied byte for byte in release order. Importing the folder and exporting it gives the same
bytes back.

    python build_newterm_sample.py /path/to/benchmark_2022

Deterministic: running it twice writes byte-identical files.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "newterm_2022"
PER_CATEGORY = 3
CLEAN = ("COMA_clean.jsonl", "COST_clean.jsonl", "CSJ_clean.jsonl")
README = """# NewTerm 2022 — a slice of the release

These files are lines of the NewTerm 2022 benchmark release (`benchmark_2022/` of
https://github.com/hexuandeng/NewTerm), by Hexuan Deng, Wenxiang Jiao, Xuebo Liu, Min Zhang
and Zhaopeng Tu: "NewTerm: Benchmarking Real-Time New Terms for Large Language Models with
Annual Updates", NeurIPS 2024 Datasets and Benchmarks. The release is licensed under the
Creative Commons Attribution 4.0 International licence (CC BY 4.0,
https://creativecommons.org/licenses/by/4.0/).

Changes: only a selection of lines. `new_terms.jsonl` keeps the first {per} terms of each of
the three categories that have an item in each human-filtered file; `COMA_clean.jsonl`,
`COST_clean.jsonl` and `CSJ_clean.jsonl` keep those terms' lines. Every kept line is
byte-identical to the release. `kg/samples/build_newterm_sample.py` makes the slice from a
copy of the release.

knowforge imports it as a benchmark (`knowforge generate newterm --import
kg/samples/newterm_2022`) so the demo can evaluate NewTerm without a generator model.
"""


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line]


def build(release: Path, out: Path = OUT, per_category: int = PER_CATEGORY) -> list[Path]:
    clean = {name: _lines(release / name) for name in CLEAN}
    covered = [{(json.loads(line)["term"], json.loads(line)["meaning"]) for line in lines}
               for lines in clean.values()]
    kept, per = [], {}
    for line in _lines(release / "new_terms.jsonl"):
        record = json.loads(line)
        key = (record["term"], record["meaning"])
        if all(key in c for c in covered) and per.get(record["type"], 0) < per_category:
            per[record["type"]] = per.get(record["type"], 0) + 1
            kept.append((key, line))
    keys = {key for key, _ in kept}
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "new_terms.jsonl"]
    written[0].write_text("".join(line + "\n" for _, line in kept), encoding="utf-8")
    for name, lines in clean.items():
        path = out / name
        path.write_text("".join(line + "\n" for line in lines
                                if (json.loads(line)["term"], json.loads(line)["meaning"]) in keys),
                        encoding="utf-8")
        written.append(path)
    (out / "README.md").write_text(README.format(per=per_category), encoding="utf-8")
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for path in build(Path(sys.argv[1])):
        print(path)
