#!/usr/bin/env bash
# KnowGen (ALCUNA) on the bundled taxonomy sample: artificial entities with KU/KD/KA questions
# written into the graph, exported as ALCUNA files and as our JSONL, then evaluated with the
# control model ($MODEL; the tiny random model when unset) under the four settings (vanilla,
# chain-of-thought, zero-shot, few-shot), and KU questions with and without the entity's
# passage in context. Needs a running graph with the samples loaded (scripts/demo.sh does that).
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-runs/demo-knowgen}
# 200 entities: the demo evaluates only 24 items per setting and 60 KU questions of them
N=${KNOWGEN_N:-200}
LIMIT=${KNOWGEN_EVAL_LIMIT:-24}
KU=${KNOWGEN_KU:-60}
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
$KF eval --benchmark knowgen:demo --backend hf --model "$MODEL" --device cpu --max-tokens 16 \
  --limit "$LIMIT" --out "$OUT/runs" --silent >/dev/null 2>&1
cat "$OUT/runs/knowgen-demo/summary.md"
# KU with the passage in context vs without it: the same questions, zero-shot, the second time
# through the no-context solver (the prompt without the passage, derived in memory: the
# benchmark's questions keep their passage)
for SOLVER in zero-shot no-context; do
  $KF eval --benchmark knowgen:demo --task KU --solver "$SOLVER" --limit "$KU" --backend hf --model "$MODEL" \
    --device cpu --max-tokens 16 --out "$OUT/runs-ku" --silent 2>&1 | grep -E "^│ \(all\)" | sed "s/^/KU $SOLVER: /"
done
