"""The engine's own bookkeeping around a run's answers, old way against new, in one process (no
server, no model: harness_overhead.py measures the whole eval).

  resample counts   how often each unit is drawn in each of --resamples resamples, times the
                    units' totals (6 columns): the integer counts of a block stacked and
                    converted to floats (before), or each row's counts written into one reused
                    float block (now, ``stats.resample_count_chunks``)
  requests          one plain zero-shot request per item: ``render_request`` each as it was at
                    8516073, its prompt joined from the chat turns (before), or
                    ``render_requests``: the first request built and checked, the others
                    copies with their own prompt, joined directly (now)
  request dedup     the distinct requests of a run looked up three times each (``dict.fromkeys``,
                    the answers by request, then each request's answer: before) or once (now,
                    ``eval.ask.ask``), with a backend that answers at once
  task filter       select_items, task_metrics and metric_intervals (--resamples) of a file
                    benchmark's task: a filter every item passes, asked of each item (before),
                    or the filter that takes every item, not asked (now, ``ItemFilter.takes_all``)
  chance            ``metric_stats.chance_of`` over the samples: an item per sample, then each
                    one's chance (before), or each item's chance once (now)

Each before and after gives the same numbers (checked); CPU seconds, best of --repeat, and the
ratio.

    .venv/bin/python benchmarks/engine_bookkeeping.py [--items 100000] [--resamples 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from harness_overhead import EchoBackend, make_items
from threadpoolctl import threadpool_limits

from knowforge.eval.ask import ask
from knowforge.eval.file_benchmark import file_task
from knowforge.eval.metric_stats import chance_of, item_chance, metric_intervals
from knowforge.eval.prompts import COT_MIN_TOKENS, render_messages, render_requests
from knowforge.eval.solvers import PromptSolver
from knowforge.eval.stats import resample_count_chunks, resample_index_chunks
from knowforge.eval.tasks import select_items, task_metrics
from knowforge.eval.types import EvalOptions
from knowforge.eval.unit import SolveContext
from knowforge.models.gc_pause import paused_gc
from knowforge.models.task import Component, ItemFilter
from knowforge.models.types import GenerationRequest


def best_cpu(fn, *args, repeat: int):
    """(the least CPU seconds of ``repeat`` calls, the last call's result)."""
    times, out = [], None
    for _ in range(repeat):
        with paused_gc():          # as the engine runs these steps
            t = time.process_time()
            out = fn(*args)
            times.append(time.process_time() - t)
    return min(times), out


def line(name: str, before: float, after: float, same: bool) -> None:
    ratio = before / after if after else float("inf")
    print(f"{name}: before {before:.3f} s, after {after:.3f} s: {ratio:.2f}x; same: "
          f"{'yes' if same else 'NO'}")


# --- before: the engine's code as it was at 8516073 -----------------------------------------------
def stacked_counts(n: int, resamples: int, seed: int, columns: np.ndarray) -> np.ndarray:
    parts = []
    for rows in resample_index_chunks(n, resamples, seed):
        drawn = np.stack([np.bincount(row, minlength=n) for row in rows]).astype(float)
        parts.append(drawn @ columns)
    return np.concatenate(parts)


def block_counts(n: int, resamples: int, seed: int, columns: np.ndarray) -> np.ndarray:
    return np.concatenate([drawn @ columns for drawn in resample_count_chunks(n, resamples, seed)])


def prompt_from_turns(item, setting: str) -> str:
    blocks = []
    for role, content in render_messages(item, setting):
        if role == "assistant":
            blocks[-1] = f"{blocks[-1]}\nAnswer: {content}"
        else:
            blocks.append(content)
    tail = "Answer: Let's think step by step." if setting == "chain-of-thought" else "Answer:"
    blocks[-1] = f"{blocks[-1]}\n{tail}"
    return "\n\n".join(blocks)


def old_render_request(item, setting: str, options) -> GenerationRequest:
    """``prompts.render_request`` at 8516073 for a plain prompt."""
    cot = setting == "chain-of-thought"
    max_tokens = max(options.max_tokens, COT_MIN_TOKENS) if cot else options.max_tokens
    stop = () if (options.chat or cot) else ("\nQuestion:",)
    common = dict(n=options.n, temperature=options.temperature, top_p=options.top_p,
                  seed=options.seed, max_tokens=max_tokens, stop=stop)
    return GenerationRequest(prompt=prompt_from_turns(item, setting), **common)


def requests_one_by_one(items, options) -> list[GenerationRequest]:
    return [old_render_request(item, "zero-shot", options) for item in items]


def ask_three_lookups(requests, backend, chunk_size: int = 256):
    unique = list(dict.fromkeys(requests))
    answered = {}
    for start in range(0, len(unique), chunk_size):
        chunk = unique[start:start + chunk_size]
        answered.update(zip(chunk, backend.generate(chunk)))
    return [answered[r] for r in requests]


def chance_per_sample(items, samples):
    by_id = {i.id: i for i in items}
    values = [item_chance(by_id[s.item_id]) for s in samples if s.item_id in by_id]
    if not values or any(v is None for v in values):
        return None
    return sum(values) / len(values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n, repeat = args.items, args.repeat
    options = EvalOptions(backend="hf", model="echo", max_tokens=8, cache=False, silent=True,
                          bootstrap=args.resamples)

    with threadpool_limits(limits=1, user_api="blas"):       # as run_tasks computes intervals
        columns = np.random.default_rng(1).integers(0, 2, size=(n, 6)).astype(float)
        before, old = best_cpu(stacked_counts, n, args.resamples, 7, columns, repeat=repeat)
        after, new = best_cpu(block_counts, n, args.resamples, 7, columns, repeat=repeat)
    line(f"resample counts, {args.resamples:,} resamples of {n:,} units", before, after, np.array_equal(old, new))

    items = make_items(n)
    before, old = best_cpu(requests_one_by_one, items, options, repeat=repeat)
    after, new = best_cpu(render_requests, items, "zero-shot", options, repeat=repeat)
    line(f"requests, {n:,} items", before, after, old == new and list(map(vars, old)) == list(map(vars, new)))

    backend = EchoBackend()
    before, old = best_cpu(ask_three_lookups, new, backend, repeat=repeat)
    after, answers = best_cpu(ask, new, backend, repeat=repeat)
    line(f"request dedup, {n:,} requests", before, after, old == answers)

    every = file_task("bench")
    named = every.model_copy(update={"dataset": ItemFilter(tasks=tuple(sorted({i.task for i in items})))})
    output = PromptSolver(Component(name="zero-shot"), "zero-shot").solve(
        items, SolveContext(backend=backend, options=options))

    def bookkeeping(task):
        chosen = select_items(items, [task])
        metrics = task_metrics([task], output, options.scoring)
        intervals = metric_intervals([task], output, metrics, options.scoring, key=None,
                                     resamples=args.resamples, seed=0)
        return chosen, metrics, intervals

    with threadpool_limits(limits=1, user_api="blas"):
        before, old = best_cpu(bookkeeping, named, repeat=repeat)
        after, new = best_cpu(bookkeeping, every, repeat=repeat)
    line(f"task filter, {n:,} items", before, after, old == new)

    before, old = best_cpu(chance_per_sample, output.items, output.samples, repeat=repeat)
    after, new = best_cpu(chance_of, output.items, output.samples, repeat=repeat)
    line(f"chance, {n:,} samples", before, after, old == new)


if __name__ == "__main__":
    main()
