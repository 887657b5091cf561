#!/usr/bin/env bash
# ELKEN-style event editing on the bundled Wikidata sample: generate >= 10 event types, export
# them in ELKEN's format, evaluate ICE and BM25 through the tiny local model, and show a
# two-hop ripple. Uses NEO4J_URI when set, otherwise the managed server.
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-out/events}
BATCH=${BATCH:-demo}
mkdir -p "$OUT"

if [ -z "${NEO4J_URI:-}" ]; then $KF neo4j start; fi
$KF init
if [ "$($KF query "MATCH (c:Country) RETURN count(c) AS n" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')" = "0" ]; then
  $KF load samples --silent
fi
# start from a clean stack for this batch (unstack it if a previous run left it)
$PY - "$BATCH" <<'PY'
import sys
from knowforge.kg.connection import open_store
from knowforge.generators.events.layering import unapply_batch
with open_store() as store:
    print(f"unstacked {unapply_batch(store, sys.argv[1])} old events")
PY

TYPES=win-election,loss-election,death,divorce,acquire,start-position,resign,IPO,marry,dismissal,start-org,education,born,transfer-player,publish,end-org
$KF generate events --types "$TYPES" --n 3 --seed 0 --batch "$BATCH" --silent

$KF export events --batch "$BATCH" --format elken --out "$OUT/elken_$BATCH.json"
$KF export events --batch "$BATCH" --format jsonl --out "$OUT/items_$BATCH.jsonl"
$PY - "$OUT/elken_$BATCH.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
types = sorted({e["event_type"] for e in events})
print(f"ELKEN export: {len(events)} events of {len(types)} types, "
      f"{sum(len(e['fact']['qas']) for e in events)} in-scope and "
      f"{sum(len(e['fact']['local_qas']) for e in events)} out-of-scope questions")
print(json.dumps(events[0], indent=1)[:1200])
PY

[ -d out/models/tiny ] || $KF tiny-model out/models/tiny
for METHOD in ice bm25; do
  $KF eval --benchmark "events:$BATCH" --backend hf --model out/models/tiny --device cpu \
      --max-tokens 8 --solver "$METHOD" --out "$OUT/runs" --silent
done

EVENT=$($KF query "MATCH (e:Event {batch: \$b, type: 'win-election'}) RETURN e.id AS id ORDER BY e.seq LIMIT 1" \
        -p b="$BATCH" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
echo "two-hop ripple of $EVENT:"
$KF ripple "$EVENT" --hops 2
$KF ripple "$EVENT" --hops 2 --format cypher > "$OUT/ripple_$BATCH.cypher"
echo "ad-hoc: what else changes if Cristiano Ronaldo's club became Real Madrid?"
$KF ripple --edit "Q11571,P54,->Q8682" --hops 2
