"""Event generation throughput: events/s and questions/s on the graph knowforge is pointed at.

Run after `knowforge load samples` (uses NEO4J_URI etc. or the managed server):

    python benchmarks/events_rate.py --n 5 --repeats 3

The baseline, measured in the same process, is one trivial named read (a Bolt round trip):
the ratios say how many round trips' worth of time one event or one question costs. Every
batch is unstacked afterwards, so the graph is left as it was.
"""

from __future__ import annotations

import argparse
import statistics
import time

from knowforge.generators.events.build import generate_events
from knowforge.generators.events.instantiate import plan_events
from knowforge.generators.events.layering import unapply_batch
from knowforge.generators.events.templates import load_templates
from knowforge.kg.connection import hide_query_notifications, open_store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5, help="events per type")
    parser.add_argument("--types", default=None, help="comma-separated types (default: all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--round-trips", type=int, default=200,
                        help="named reads timed for the baseline round trip")
    args = parser.parse_args()
    hide_query_notifications()
    templates = load_templates()
    types = args.types.split(",") if args.types else list(templates)
    with open_store() as store:
        t0 = time.perf_counter()
        trips = args.round_trips
        for _ in range(trips):
            store.read("events/read_max_seq")
        round_trip = (time.perf_counter() - t0) / trips

        plan_rates, event_rates, question_rates = [], [], []
        for r in range(args.repeats):
            t0 = time.perf_counter()
            planned = plan_events(store, templates, types, args.n, seed=r, batch=f"bench-plan-{r}").plans
            plan_rates.append(len(planned) / (time.perf_counter() - t0))
            t0 = time.perf_counter()
            summary = generate_events(store, types=types, n=args.n, seed=r, batch=f"bench-{r}")
            seconds = time.perf_counter() - t0
            event_rates.append(len(summary.plans) / seconds)
            question_rates.append(summary.n_questions / seconds)
            unapply_batch(store, f"bench-{r}")
        events = len(summary.plans)
        questions = summary.n_questions
    med = statistics.median
    print(f"types={len(types)} n/type={args.n} events/batch={events} questions/batch={questions} "
          f"repeats={args.repeats}")
    print(f"baseline: one named read round trip = {1000 * round_trip:.2f} ms")
    print(f"planning only           : {med(plan_rates):8.1f} events/s "
          f"(one event = {1 / med(plan_rates) / round_trip:.1f} round trips)")
    print(f"generate (plan+questions+layer+store): {med(event_rates):8.1f} events/s, "
          f"{med(question_rates):8.1f} questions/s "
          f"(one event = {1 / med(event_rates) / round_trip:.1f} round trips)")


if __name__ == "__main__":
    main()
