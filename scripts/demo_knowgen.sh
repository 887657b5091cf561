#!/usr/bin/env bash
# KnowGen (ALCUNA) on the bundled taxonomy sample: 1,000 artificial entities with KU/KD/KA
# questions written into the graph, exported as ALCUNA files and as our JSONL, then evaluated
# with the tiny local model under the four settings (vanilla, chain-of-thought, zero-shot,
# few-shot). Needs a running graph with the samples loaded (scripts/demo.sh does that).
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
OUT=${OUT:-runs/demo-knowgen}
N=${KNOWGEN_N:-1000}
LIMIT=${KNOWGEN_EVAL_LIMIT:-24}
mkdir -p "$OUT"
# rerunnable: a previous demo batch is dropped first (restoring the graph exactly)
$KF generate knowgen --drop demo >/dev/null 2>&1 || true
$KF generate knowgen --batch demo --n "$N" --seed 0 --silent
$KF export knowgen --batch demo --format alcuna --out "$OUT/alcuna"
$KF export knowgen --batch demo --format jsonl --out "$OUT/jsonl"
[ -d "$OUT/tiny-model" ] || $KF tiny-model "$OUT/tiny-model" --seed 0
$KF eval --benchmark knowgen:demo --backend hf --model "$OUT/tiny-model" --device cpu --max-tokens 16 \
  --limit "$LIMIT" --out "$OUT/runs" --silent
cat "$OUT/runs/knowgen-demo/summary.md"
$KF query "MATCH (q:Question {benchmark:'knowgen:demo'}) RETURN q.slice_type AS type, q.form AS form, count(q) AS questions ORDER BY type, form"
