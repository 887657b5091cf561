"""`knowforge eval` against `lm_eval` on our own lm-eval export: same items, same tiny model, same batch.

Both harnesses run as the commands a user types, one after the other, ``--repeat`` times in
alternation (so drifting load on the machine hits both alike), on:

- the items: ``--items`` multiple-choice questions of four options (KnowGen KA-like), written as
  a JSONL file benchmark and exported with ``knowforge.eval.lm_eval_export.write_lm_eval_tasks``
  (what ``knowforge export METHOD --format lm-eval`` writes);
- the model: the tiny llama built by ``knowforge.models.tiny_model`` (float32, cpu);
- ``knowforge eval --benchmark FILE --mc-scoring likelihood --no-cache --batch-size B``
  against ``python -m lm_eval --model hf --batch_size B`` on the export (acc, acc_norm).

``knowforge eval`` needs a graph (the file's questions and the Run are written to it): the
script uses the one NEO4J_URI names or the running managed server, or starts a throw-away one
with ``--start-neo4j``. Prints each side's wall times, the ratio knowforge / lm_eval (best of
each and median of each), and both accuracies, which must agree (the same picks).

    .venv/bin/python benchmarks/vs_lm_eval.py [--items 1000] [--batch-size 16] [--repeat 2] [--start-neo4j]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _throwaway import throwaway_neo4j  # noqa: E402

COLOURS = ["red", "green", "blue", "grey", "black", "white", "amber", "violet"]


def make_items(n: int):
    from knowforge.models.types import BenchmarkItem

    return [BenchmarkItem(id=f"v{i}", benchmark="versus", task="v/mc", form="multi-choice",
                          question=f"Which colour belongs to organisation {i} founded in {1900 + i % 120}?",
                          choices=[COLOURS[(i + k) % len(COLOURS)] for k in range(4)], answer_index=i % 4,
                          scorer="multi-choice") for i in range(n)]


def timed(command: list[str], env: dict[str, str], log: Path) -> float:
    t = time.perf_counter()
    with log.open("w") as handle:
        done = subprocess.run(command, env=env, stdout=handle, stderr=subprocess.STDOUT, check=False)
    elapsed = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{command[:3]} failed ({done.returncode}); its output:\n{log.read_text()[-4000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--start-neo4j", action="store_true", help="start a throw-away managed Neo4j")
    args = parser.parse_args()

    from knowforge.eval.file_benchmark import file_task
    from knowforge.eval.lm_eval_export import benchmark_prefix, write_lm_eval_tasks
    from knowforge.models.items_io import write_items
    from knowforge.models.tiny_model import build_tiny_model

    if not args.start_neo4j and not os.environ.get("NEO4J_URI"):
        raise SystemExit("knowforge eval needs a Neo4j: set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD) or pass "
                         "--start-neo4j")
    server = throwaway_neo4j() if args.start_neo4j else contextlib.nullcontext()
    with tempfile.TemporaryDirectory() as tmp, server as throwaway:
        tmp = Path(tmp)
        model = build_tiny_model(tmp / "model", seed=0)
        items = make_items(args.items)
        bench = tmp / "versus.jsonl"
        write_items(bench, items)
        write_lm_eval_tasks(items, tmp / "lm", benchmark="versus", tasks=[file_task("versus")])
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "HF_DATASETS_CACHE": str(tmp / "hf-cache"), "TOKENIZERS_PARALLELISM": "false"}
        if throwaway is not None:
            settings = throwaway.settings
            env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user, NEO4J_PASSWORD=settings.password)
        knowforge = [str(Path(sys.executable).with_name("knowforge")), "eval", "--benchmark", str(bench),
                     "--mc-scoring", "likelihood", "--no-cache", "--backend", "hf", "--model", str(model),
                     "--device", "cpu", "--batch-size", str(args.batch_size), "--silent"]
        lm_eval = [sys.executable, "-m", "lm_eval", "--model", "hf",
                   "--model_args", f"pretrained={model},dtype=float32", "--device", "cpu",
                   "--include_path", str(tmp / "lm"), "--tasks", benchmark_prefix("versus"),
                   "--batch_size", str(args.batch_size)]
        ours, theirs = [], []
        for k in range(args.repeat):   # each time printed as it comes: a loaded machine may not let all finish
            ours.append(timed([*knowforge, "--out", str(tmp / f"runs-{k}")], env, tmp / "knowforge.log"))
            print(f"run {k + 1}: knowforge eval {ours[-1]:.2f} s", flush=True)
            theirs.append(timed([*lm_eval, "--output_path", str(tmp / f"lm-out-{k}")], env, tmp / "lm_eval.log"))
            print(f"run {k + 1}: lm_eval {theirs[-1]:.2f} s", flush=True)
        ours_acc = json.loads(next((tmp / "runs-0").rglob("summary.json")).read_text())
        ours_acc = next(iter(ours_acc["runs"].values()))["accuracy"]
        results = json.loads(next((tmp / "lm-out-0").rglob("results_*.json")).read_text())["results"]
        their_acc = next(v["acc,none"] for v in results.values() if "acc,none" in v)
    print(f"items: {args.items} multiple-choice (4 options), tiny model (cpu, float32), batch {args.batch_size}, "
          f"{args.repeat} runs each, alternating")
    print(f"knowforge eval --mc-scoring likelihood: {', '.join(f'{t:.2f}' for t in ours)} s")
    print(f"lm_eval --model hf                    : {', '.join(f'{t:.2f}' for t in theirs)} s")
    print(f"accuracy: knowforge {ours_acc:.4f}, lm_eval acc {their_acc:.4f}")
    print(f"ratio knowforge / lm_eval: best/best {min(ours) / min(theirs):.3f}, "
          f"median/median {statistics.median(ours) / statistics.median(theirs):.3f}")


if __name__ == "__main__":
    main()
