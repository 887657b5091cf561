#!/usr/bin/env bash
# The main job on the bundled sample data; `make demo` runs it after installing.
# Starts (or reuses) the managed Neo4j — or uses NEO4J_URI when set — applies the schema, loads
# every bundled sample, prints stats, then generates, exports and evaluates each benchmark
# family with a tiny local model. Safe to run again: loads are idempotent MERGEs, generated
# batches are dropped and regenerated under the same seed, and answers come from the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
export KF=${KF:-.venv/bin/knowforge}
export PY=${PY:-.venv/bin/python}
OUT=${OUT:-runs/demo}
mkdir -p "$OUT"
SECONDS=0

section() { printf '\n== %s ==\n' "$1"; }

section "Neo4j"
if [ -z "${NEO4J_URI:-}" ]; then
  $KF neo4j start
fi
$KF init

section "Load the bundled samples"
$KF load samples
$KF stats

section "KnowGen (ALCUNA): artificial entities"
OUT="$OUT/knowgen" bash scripts/demo_knowgen.sh

section "ChroKnow: time-stamped knowledge"
OUT="$OUT/chrono" bash scripts/demo_chrono.sh

section "ELKEN: events and their ripples"
OUT="$OUT/events" bash scripts/demo_events.sh

section "NewTerm: new dictionary terms"
OUT="$OUT/newterm" bash scripts/demo_newterm.sh

section "LINK / LINT: long-tail statements from symbolic-rule chains"
OUT="$OUT/link" bash scripts/demo_link.sh

section "Done in ${SECONDS}s"
echo "Reports and exports are under $OUT/; the graph is at $($KF neo4j status --json | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["uri"] or "NEO4J_URI")')."
echo "Explore it in Neo4j Browser ($KF neo4j status) or with: $KF query \"MATCH (e:Artificial) RETURN e.name LIMIT 10\""
