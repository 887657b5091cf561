#!/usr/bin/env bash
# KnowGen (ALCUNA) on the bundled taxonomy sample: artificial entities with KU/KD/KA questions
# written into the graph, exported as ALCUNA files and as our JSONL, then evaluated with the
# control model ($MODEL; the tiny random model when unset): KA questions under the four settings
# (vanilla, chain-of-thought, zero-shot, few-shot; multiple-choice and yes/no items scored by
# likelihood), and KU questions with and without the entity's passage in context as a paired
# comparison. Every number is shown with its 95% interval and the chance level of its items.
# Needs a running graph with the samples loaded (scripts/demo.sh does that).
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-runs/demo-knowgen}
# 200 entities. An interval rests on entities (the unit: an entity's questions share its facts and
# passage), so the demo asks few questions of many entities: the first 270 KA questions (30
# entities, about 9 each) per setting, and the first 360 KU questions (20 entities) both ways.
N=${KNOWGEN_N:-200}
LIMIT=${KNOWGEN_EVAL_LIMIT:-270}
KU=${KNOWGEN_KU:-360}
mkdir -p "$OUT"
if [ -z "${MODEL:-}" ]; then
  MODEL="$OUT/tiny-model"
  [ -d "$MODEL" ] || $KF tiny-model "$MODEL" --seed 0 >/dev/null
fi
# rerunnable: a previous demo batch is dropped first (restoring the graph exactly)
$KF generate knowgen --drop demo >/dev/null 2>&1 || true
# the summary goes to stderr, the benchmark's id (for scripts) to stdout: only the summary is shown
$KF generate knowgen --name demo --n "$N" --seed 0 --silent >/dev/null
$KF export knowgen --name demo --format alcuna --out "$OUT/alcuna" >/dev/null 2>&1
$KF export knowgen --name demo --format jsonl --out "$OUT/jsonl" >/dev/null 2>&1
# Multiple-choice and yes/no items are scored by likelihood (as lm-evaluation-harness does): a small
# model that rarely writes a parseable letter still shows what it knows. Open items are generated.
$KF eval --benchmark knowgen:demo --task KA --backend hf --model "$MODEL" --device cpu --max-tokens 16 \
  --mc-scoring likelihood --limit "$LIMIT" --out "$OUT/runs" --silent >/dev/null 2>&1
sed -n '/^## Task metrics/,/^## Accuracy by difference/p' "$OUT/runs/knowgen-demo/summary.md" | sed '$d'
echo "(% ± half the 95% interval over entities; chance: random guesses, - for open questions, where a guess" \
     "almost never matches: there an interval above 0 is what shows knowledge; * the interval excludes chance)"
# KU with the passage in context vs without it: the same questions, zero-shot, the second time
# through the no-context solver (the prompt without the passage, derived in memory: the
# benchmark's questions keep their passage); then the paired comparison of the two runs
for SOLVER in zero-shot no-context; do
  SUMMARY=$($KF eval --benchmark knowgen:demo --task KU --solver "$SOLVER" --limit "$KU" --backend hf \
    --model "$MODEL" --device cpu --max-tokens 16 --mc-scoring likelihood --out "$OUT/runs-ku-$SOLVER" --silent \
    2> "$OUT/ku-$SOLVER.log" | tail -n 1) || { cat "$OUT/ku-$SOLVER.log"; exit 1; }
  cp "$SUMMARY/summary.json" "$OUT/ku-$SOLVER.json"
done
WITH=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"]["zero-shot"]["run_id"])' "$OUT/ku-zero-shot.json")
WITHOUT=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"]["no-context"]["run_id"])' \
  "$OUT/ku-no-context.json")
$KF report "$WITH" --compare "$WITHOUT" --out "$OUT/ku-compare" >/dev/null 2>&1
$PY - "$OUT/ku-compare/report.json" "$OUT/ku-zero-shot.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
chance = {form: g.get("chance") for form, g in json.load(open(sys.argv[2]))["runs"]["zero-shot"]["by"]["form"].items()}
paired = report["compare"]["paired"]
pm = lambda v, ci, sign="": "-" if v is None else f"{100 * v:{sign}.1f}" + (f" ± {100 * (ci[1] - ci[0]) / 2:.1f}" if ci else "")
print(f"KU with the passage vs without it: {paired['shared_items']} questions of {paired['overall']['units']} "
      f"entities answered both ways (zero-shot); % ± half the 95% interval; chance: random guesses")
print(f"  {'form':14s} {'chance':>6s}  {'with':>12s}  {'without':>12s}  {'with - without (paired)':>24s}  p")
rows = [(f, report["by_form"].get(f, {}), report["compare"]["by_form"].get(f, {}), paired["by_form"].get(f))
        for f in sorted(paired["by_form"])] + [("all", report["overall"], report["compare"]["overall"], paired["overall"])]
for form, mine, theirs, diff in rows:
    c = chance.get(form)
    p = diff.get("p_value")
    print(f"  {form:14s} {'-' if c is None else f'{100 * c:.1f}':>6s}  {pm(mine.get('accuracy'), mine.get('ci')):>12s}  "
          f"{pm(theirs.get('accuracy'), theirs.get('ci')):>12s}  {pm(diff['difference'], diff.get('ci'), '+'):>24s}  "
          f"{'-' if p is None else ('<0.001' if p < 0.001 else f'{p:.3f}')} ({diff.get('test')})")
ci = paired["overall"].get("ci")
if ci:
    verdict = "includes 0: the passage makes no difference this run can show" if ci[0] <= 0 <= ci[1] else \
        "excludes 0: the passage " + ("raises" if ci[0] > 0 else "lowers") + " KU accuracy"
    print(f"  the interval of with - without {verdict} (a yes/no item's plain accuracy is the share of its "
          "majority answer for a model that always says the same: its balanced accuracy is in the reports)")
PY
