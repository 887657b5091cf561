#!/usr/bin/env bash
# The main job on the bundled sample data; `make demo` runs it after installing.
# Starts (or reuses) the managed Neo4j — or uses NEO4J_URI when set — applies the schema, loads
# every bundled sample, trains the control model (a small LM taught the graph's facts up to
# CUTOFF, with a seeded share held out), then generates, exports and evaluates each benchmark
# family with it and prints how each benchmark's verdicts line up with what the model was
# taught. Safe to run again: loads are idempotent MERGEs, generated batches are dropped and
# regenerated under the same seed, the trained model is reused, and answers come from the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
export KF=${KF:-.venv/bin/knowforge}
export PY=${PY:-.venv/bin/python}
export CUTOFF=${CUTOFF:-2020}
OUT=${OUT:-runs/demo}
export MODEL=${MODEL:-$OUT/control-$CUTOFF}
# Library chatter (transformers' advisory warnings, tokenizers' fork notice) is not the demo's output.
export TRANSFORMERS_VERBOSITY=error TOKENIZERS_PARALLELISM=false PYTHONWARNINGS=ignore
# torch's OpenMP threads wait passively: spinning threads starve each other on a busy machine.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
mkdir -p "$OUT"
SECONDS=0

section() { printf '\n== %s (%ss) ==\n' "$1" "$SECONDS"; }

section "Neo4j"
if [ -z "${NEO4J_URI:-}" ]; then
  $KF neo4j start
fi
$KF init

section "Load the bundled samples"
$KF load samples --silent
$KF stats

section "Control model: a small LM taught the graph's facts up to $CUTOFF"
bash scripts/demo_control.sh

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

section "Validity: each benchmark's verdicts against what the control model was taught"
RUN=$(cat "$OUT/chrono/control_run")
$KF report "$RUN" --validity --out "$OUT/validity" 2>&1 | sed -n '/^# Validity/,$p'

section "Done in ${SECONDS}s"
echo "Reports and exports are under $OUT/ (validity: $OUT/validity/validity.md); the graph is at $($KF neo4j status --json | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["uri"] or "NEO4J_URI")')."
echo "Explore it in Neo4j Browser ($KF neo4j status) or with: $KF query \"MATCH (m:Model)-[:TRAINED_ON]->(f:Fact) RETURN m.id, count(f)\""
