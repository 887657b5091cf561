#!/usr/bin/env bash
# ELKEN-style event editing on the bundled Wikidata sample: generate >= 10 event types, export
# them in ELKEN's format, evaluate no edit, ICE, BM25, fine-tuning (a copy of the model per
# event) and, on a control model, ROME and MEMIT (the event's triplets written into the weights,
# on the first $WEIGHT_LIMIT events) with the control model ($MODEL; the tiny random model when
# unset), and show a two-hop ripple. Uses NEO4J_URI when set, otherwise the managed server.
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-out/events}
BATCH=${BATCH:-demo}
METHODS=${EVENT_METHODS:-no-edit ice bm25 ft rome memit}
WEIGHT_LIMIT=${WEIGHT_LIMIT:-8}     # events edited by ROME / MEMIT (the demo's time budget)
mkdir -p "$OUT"

if [ -z "${NEO4J_URI:-}" ]; then $KF neo4j start >/dev/null; fi
$KF init >/dev/null
if [ "$($KF query "MATCH (c:Country) RETURN count(c) AS n" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')" = "0" ]; then
  $KF load samples --silent
fi
if [ -z "${MODEL:-}" ]; then
  MODEL=out/models/tiny
  [ -d "$MODEL" ] || $KF tiny-model "$MODEL" >/dev/null
fi
# start from a clean stack for this batch (unstack it if a previous run left it)
$PY - "$BATCH" <<'PY'
import logging, sys
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)   # as the CLI does without -vv
from knowforge.kg.connection import open_store
from knowforge.generators.events.layering import unapply_batch
with open_store() as store:
    unapply_batch(store, sys.argv[1])
PY

TYPES=win-election,loss-election,death,divorce,acquire,start-position,resign,IPO,marry,dismissal,start-org,education,born,transfer-player,publish,end-org
# the summary, without the benchmark id printed last for scripts
$KF generate events --types "$TYPES" --n 3 --seed 0 --name "$BATCH" --silent >/dev/null

$KF export events --name "$BATCH" --format elken --out "$OUT/elken_$BATCH.json" >/dev/null 2>&1
$KF export events --name "$BATCH" --format jsonl --out "$OUT/items_$BATCH.jsonl" >/dev/null 2>&1
$PY - "$OUT/elken_$BATCH.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
types = sorted({e["event_type"] for e in events})
print(f"ELKEN export: {len(events)} events of {len(types)} types, "
      f"{sum(len(e['fact']['qas']) for e in events)} in-scope and "
      f"{sum(len(e['fact']['local_qas']) for e in events)} out-of-scope questions")
e = events[0]
print(f"e.g. {e['event']!r}: " + "; ".join(f"{q['question']} -> {q['answer']['name']}" for q in e["fact"]["qas"][:3]))
PY

# each method's reliability and locality with their 95% intervals (a bootstrap over events), and its
# paired difference from no edit on the same questions (knowforge report --compare); fact questions
# are open, so their chance level is about 0: the comparison with no edit is what tells
NOEDIT=
for METHOD in $METHODS; do
  LIMIT=()
  if [ "$METHOD" = rome ] || [ "$METHOD" = memit ]; then
    # their covariance statistics come from the control model's own training text
    [ -f "$MODEL/control.json" ] || { echo "$METHOD: skipped, $MODEL is not a control model"; continue; }
    LIMIT=(--limit "$WEIGHT_LIMIT")
  fi
  $KF eval --benchmark "events:$BATCH" --backend hf --model "$MODEL" --device cpu "${LIMIT[@]}" \
      --max-tokens 8 --batch-size 32 --solver "$METHOD" --out "$OUT/runs" --silent > "$OUT/eval-$METHOD.log" 2>&1 \
      || { cat "$OUT/eval-$METHOD.log"; exit 1; }
  RUN=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][sys.argv[2]]["run_id"])' \
    "$OUT/runs/events-$BATCH/summary.json" "$METHOD")
  [ "$METHOD" = no-edit ] && NOEDIT=$RUN
  COMPARED=
  if [ -n "$NOEDIT" ] && [ "$RUN" != "$NOEDIT" ]; then
    $KF report "$RUN" --compare "$NOEDIT" --out "$OUT/compare-$METHOD" >/dev/null 2>&1
    COMPARED="$OUT/compare-$METHOD/report.json"
  fi
  $PY - "$OUT/runs/events-$BATCH/summary.json" "$METHOD" "$COMPARED" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][sys.argv[2]]
rows = {(t, r["name"]): r for t, rs in run["intervals"].items() for r in rs}
pm = lambda r, sign="": "-" if not r or r.get("value") is None else f"{100 * r['value']:{sign}.1f}" + (
    f" ± {100 * (r['ci'][1] - r['ci'][0]) / 2:.1f}" if r.get("ci") else "")
line = (f"{sys.argv[2]:>8}: question-level reliability {pm(rows.get(('events/fact', 'edit_reliability.question_level')))}, "
        f"edit-level {pm(rows.get(('events/fact', 'edit_reliability.edit_level')))}, "
        f"locality {pm(rows.get(('events/locality', 'locality.question_level')))}")
if sys.argv[3]:
    diff = json.load(open(sys.argv[3]))["compare"]["paired"]["by_task"].get("events/fact")
    if diff:
        p, ci = diff["p_value"], diff.get("ci")
        excludes = ci is not None and (ci[0] > 0 or ci[1] < 0)
        line += (f"; − no edit {pm({'value': diff['difference'], 'ci': ci}, '+')} points over {diff['units']} events "
                 f"(p {'<0.001' if p < 0.001 else f'{p:.3f}'}, {diff['test']}; the interval "
                 f"{'excludes' if excludes else 'includes'} 0)")
print(line)
PY
done
echo "(% ± half the 95% interval, a bootstrap over events; the fact questions are open: chance is about 0;"
echo " rome and memit: the first $WEIGHT_LIMIT events, compared with no edit on the same questions)"

EVENT=$($KF query "MATCH (e:Event {batch: \$b, type: 'win-election'}) RETURN e.id AS id ORDER BY e.seq LIMIT 1" \
        -p b="$BATCH" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
echo "two-hop ripple of $EVENT:"
# to a file first: piping into head could cut the table off mid-write (a broken pipe fails the demo)
$KF ripple "$EVENT" --hops 2 > "$OUT/ripple_$BATCH.txt" 2>&1
head -n 25 "$OUT/ripple_$BATCH.txt"
$KF ripple "$EVENT" --hops 2 --format cypher > "$OUT/ripple_$BATCH.cypher"
