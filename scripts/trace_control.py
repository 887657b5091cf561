"""Causal tracing of a control model on its own graph facts, and where ROME and MEMIT edit it.

ROME's paper picks the edited layer by causal tracing (Meng et al. 2022a, §2): the subject's
token embeddings are noised, one layer's MLP output at one position is restored, and the
recovered probability of the answer says how much that layer carries the fact. This script
does that on a trained control model (``knowforge train-control``) over a seeded sample of the
facts it was trained on, at both sites the editor supports (``fact_token``: the subject's last
token, the papers' site; the prompt's last token, EasyEdit's ``last``), in both forms the model
was taught a fact in and ELKEN asks it in:

* ``statement``: ``"{subject}, {label}:"`` continued by the object (the request template the
  ``rome``/``memit`` solvers write by default);
* ``question``: the zero-shot ELKEN prompt (instruction, ``Question: ...``, ``Answer:``), as
  ``eval.prompts.render_prompt`` renders an event's fact question.

Tracing says where a fact is read; it does not say whether an edit written there takes. So the
script then edits: for every (site, layer), ROME and MEMIT (the editor's defaults for the
model with that site and layer) rewrite ``--edits`` known facts to another object of the same
relation, one fact at a time (MEMIT: the same requests in batches of ``--memit-batch``), and
measure on the edited model

* efficacy: the statement prompt now continues with the new object;
* generalisation: the ELKEN question about the fact is now answered with it (what an event's
  in-scope fact question asks; ELKEN's fact rule, ``rules.score_fact``);
* locality: ``--others`` other known facts keep their answers, in both forms;

and the CPU seconds per edit. The weights are restored after every edit (checked with
``weights_digest`` at the end).

    OMP_NUM_THREADS=1 .venv/bin/python scripts/trace_control.py --model runs/demo/control-2020
    # the sweeps of docs/editing.md's tables, at the traced site and layer:
    ... --no-grid --rome-ridge 0.1,1,10 --memit-lambda 1,10,100,1000
    ... --no-grid --template question --rome-ridge 0.1 --memit-lambda 1

Its figures for the demo's control model (2026-11-28) are in docs/editing.md ("The control
model"): they chose the small-model defaults of ``default_hparams``.

The graph must hold the facts the model was trained on (the managed Neo4j, or ``NEO4J_URI``):
the sample and the covariance corpus (the model's own training text) are read from it.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def _known(backend, prompts: list[str], max_tokens: int = 8) -> list[str]:
    from knowforge.models.types import GenerationRequest

    requests = [GenerationRequest(prompt=p, max_tokens=max_tokens, stop=("\n",)) for p in prompts]
    return [r.texts[0] for r in backend.generate(requests)]


def _first_line(text: str) -> str:
    return text.strip().split("\n")[0].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a control model folder (control.json next to the weights)")
    parser.add_argument("--facts", type=int, default=300, help="trained facts sampled and asked (seeded)")
    parser.add_argument("--trace", type=int, default=40, help="known facts traced per form")
    parser.add_argument("--samples", type=int, default=10, help="noise samples per trace")
    parser.add_argument("--edits", type=int, default=20, help="facts rewritten per configuration")
    parser.add_argument("--others", type=int, default=40, help="known facts whose answers locality checks")
    parser.add_argument("--memit-batch", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--template", choices=("statement", "question"), default="statement",
                        help="the requests' prompt: the solver's -S template (default statement)")
    parser.add_argument("--rome-ridge", default="", help="also ROME at the traced site and layer with these "
                        "mom2_ridge values (comma-separated)")
    parser.add_argument("--memit-lambda", default="", help="also MEMIT at the traced site and layer with these "
                        "mom2_update_weight values (comma-separated)")
    parser.add_argument("--no-grid", action="store_true", help="skip the edits at every site and layer")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()

    import torch

    from knowforge.eval.events import rules
    from knowforge.eval.events.weight_edit import control_training_text, relation_template
    from knowforge.eval.prompts import render_prompt
    from knowforge.kg.connection import open_store
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.control import facts_hash, read_card, read_source_facts
    from knowforge.models.control_data import TRAINED, load_phrasings, split_facts
    from knowforge.models.editing import (EditHparams, EditRequest, WeightEditor, causal_trace, choose_layers,
                                          default_hparams, weights_digest)
    from knowforge.models.editing.tracing import mean_effects
    from knowforge.models.types import BenchmarkItem

    torch.set_num_threads(args.threads)
    card = read_card(args.model)
    if card is None:
        raise SystemExit(f"{args.model} is not a control model (no control.json)")
    store = open_store(autostart=False)
    facts = read_source_facts(store)
    if facts_hash(facts) != card.facts_hash:
        raise SystemExit(f"the graph's source facts are not those {card.model_id} was trained on")
    config = card.config.data_config()
    membership = split_facts(facts, cutoff=config.cutoff, holdout=config.holdout, seed=config.seed)
    trained = [f for f in facts if membership[f.id] == TRAINED]
    slots = defaultdict(list)
    for f in trained:
        slots[(f.subject_id, f.relation)].append(f)
    # one trained object per (subject, relation), holding at the cutoff: the model was taught it in
    # both forms (statements always; questions for facts that hold at the cutoff)
    candidates = [f for f in trained if f.kind == "relation" and len(slots[(f.subject_id, f.relation)]) == 1
                  and (f.end_year is None or f.end_year > config.cutoff) and f.subject and f.object]
    rng = random.Random(f"{args.seed}:control-tracing")
    sample = sorted(rng.sample(candidates, min(args.facts, len(candidates))), key=lambda f: f.id)

    backend = HFBackend(args.model, device="cpu", batch_size=32)
    model, tokenizer = backend.lm, backend.tokenizer
    model.eval()
    phrasings = load_phrasings()
    depth = len(model.model.layers)

    def statement(f, subject: str = "{}") -> str:
        return f"{subject}, {f.label}:"

    def question(f, subject: str = "{}") -> str:
        item = BenchmarkItem(id="q", benchmark="b", task="t", form="generation",
                             question=phrasings.question(f.relation, f.label, subject), answers=["x"])
        return render_prompt(item, "zero-shot")

    forms = {"statement": statement, "question": question}

    def right(form: str, answer: str, target: str) -> bool:
        if form == "statement":
            return _first_line(answer).startswith(target)
        return rules.score_fact(answer, target)

    def ask(form: str, pairs) -> list[str]:
        return _known(backend, [forms[form](f, f.subject) for f in pairs])

    t0 = time.process_time()
    answers = {form: ask(form, sample) for form in forms}
    known = {form: [f for f, a in zip(sample, answers[form]) if right(form, a, f.object)] for form in forms}
    both = [f for f, s, q in zip(sample, answers["statement"], answers["question"])
            if right("statement", s, f.object) and right("question", q, f.object)]
    print(f"{card.model_id}: llama, {depth} layers, width {model.config.hidden_size}; {len(candidates)} trained "
          f"one-object relation facts holding at {config.cutoff}, {len(sample)} sampled; known (greedy answer is "
          f"the object): statement {len(known['statement'])}, question {len(known['question'])}, both {len(both)} "
          f"({time.process_time() - t0:.1f} CPU s)")
    figures: dict = {"model": card.model_id, "layers": depth, "sampled": len(sample),
                     "known": {k: len(v) for k, v in known.items()}, "known_both": len(both), "trace": [], "edits": []}

    # --- causal tracing --------------------------------------------------------------------------
    print("\ncausal tracing (mean over known facts; effect = restored - corrupted probability of the object's first token)")
    print("| form | traced position | facts | clean p | corrupted p | " + " | ".join(f"effect, layer {l}" for l in range(depth))
          + " | ROME layer | MEMIT layers |")
    print("|---|---|---|---|---|" + "---|" * depth + "---|---|")
    for form in forms:
        traced = known[form][:args.trace]
        if not traced:
            continue
        for site in ("subject_last", "last"):
            t0 = time.process_time()
            results = [causal_trace(model, tokenizer, forms[form](f), f.subject, f.object, samples=args.samples,
                                    seed=args.seed, site=site) for f in traced]
            effects = mean_effects(results)
            clean = statistics.mean(r.clean for r in results)
            corrupted = statistics.mean(r.corrupted for r in results)
            rome, memit = choose_layers(results, "rome"), choose_layers(results, "memit")
            print(f"| {form} | {site} | {len(traced)} | {clean:.3f} | {corrupted:.3f} | "
                  + " | ".join(f"{e:+.3f}" for e in effects) + f" | {rome[0]} | {', '.join(map(str, memit))} |")
            figures["trace"].append({"form": form, "site": site, "facts": len(traced), "clean": clean,
                                     "corrupted": corrupted, "effects": list(effects), "rome": list(rome),
                                     "memit": list(memit), "cpu_s": time.process_time() - t0})

    # --- edits at each site and layer --------------------------------------------------------------
    edited, others = both[:args.edits], both[args.edits:args.edits + args.others]
    if not edited or not others:
        raise SystemExit(f"too few facts known in both forms ({len(both)}) to edit and check locality")
    by_relation = defaultdict(list)
    for f in candidates:
        by_relation[f.relation].append(f.object)

    def new_target(f) -> str:
        choices = sorted({o for o in by_relation[f.relation] if o != f.object and not o.startswith(f.object)
                          and not f.object.startswith(o)})
        return random.Random(f"{args.seed}:{f.id}").choice(choices) if choices else ""

    requests = [(f, new_target(f)) for f in edited]
    requests = [(f, t) for f, t in requests if t]
    base_others = {form: ask(form, others) for form in forms}
    corpus = control_training_text(store, args.model)
    digest = weights_digest(model)
    print(f"\nedits: {len(requests)} known facts rewritten to another object of their relation ({args.template} "
          "template); "
          f"locality over {len(others)} other known facts, both forms; covariance: {corpus.description}")
    print("| method | site | layers | setting | efficacy (statement) | generalisation (ELKEN question) | "
          "locality, statement | locality, question | CPU s per edit |")
    print("|---|---|---|---|---|---|---|---|---|")
    template = (statement if args.template == "statement"
                else lambda f: relation_template(f, "question"))
    traced = next(t for t in figures["trace"] if t["form"] == "statement" and t["site"] == "last")
    configs = [] if args.no_grid else [(m, site, layer, {}) for m in ("rome", "memit")
                                       for site in ("subject_last", "last") for layer in range(depth)]
    configs += [("rome", "last", traced["rome"][0], {"mom2_ridge": float(v)}) for v in args.rome_ridge.split(",") if v]
    configs += [("memit", "last", traced["memit"][-1], {"mom2_update_weight": float(v)})
                for v in args.memit_lambda.split(",") if v]
    with tempfile.TemporaryDirectory() as tmp:
        for method, site, layer, extra in configs:
            base = default_hparams(method, model)
            hp = EditHparams.model_validate({**base.model_dump(), "layers": (layer,), "fact_token": site, **extra})
            editor = WeightEditor(model, tokenizer, method, hparams=hp, stats_corpus=corpus.texts,
                                  cache_dir=Path(tmp), model_revision=card.model_id)
            batch = 1 if method == "rome" else args.memit_batch
            hits = {"statement": 0, "question": 0}
            kept = {"statement": [], "question": []}
            cpu = 0.0
            for start in range(0, len(requests), batch):
                chunk = requests[start:start + batch]
                t0 = time.process_time()
                editor.apply([EditRequest(template(f), f.subject, t, key=f.id) for f, t in chunk])
                cpu += time.process_time() - t0
                for form in forms:
                    got = ask(form, [f for f, _ in chunk])
                    hits[form] += sum(right(form, a, t) for a, (_, t) in zip(got, chunk))
                    after = ask(form, others)
                    kept[form] += [_first_line(a) == _first_line(b) for a, b in zip(after, base_others[form])]
                editor.restore()
            n = len(requests)
            setting = ", ".join(f"{k} {v:g}" for k, v in extra.items()) or "default"
            row = {"method": method, "site": site, "layers": [layer], "setting": setting, "template": args.template,
                   "requests": n, "efficacy": hits["statement"] / n, "generalisation": hits["question"] / n,
                   "locality_statement": statistics.mean(kept["statement"]),
                   "locality_question": statistics.mean(kept["question"]), "cpu_s_per_edit": cpu / n}
            figures["edits"].append(row)
            print(f"| {method.upper()} | {site} | {layer} | {setting} | {100 * row['efficacy']:.0f}% | "
                  f"{100 * row['generalisation']:.0f}% | {100 * row['locality_statement']:.1f}% | "
                  f"{100 * row['locality_question']:.1f}% | {row['cpu_s_per_edit']:.2f} |")
    if weights_digest(model) != digest:
        raise SystemExit("the weights were not restored exactly")
    store.close()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
