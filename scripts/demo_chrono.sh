#!/usr/bin/env bash
# ChroKnow on the bundled samples: five benchmarks from the graph, and the general domain's
# Generation template evaluated end to end with the control model ($MODEL; the tiny random
# model when unset): the sampling-based knowledge check + ChroKnowPrompt (both spans), report
# with plots. Needs a running graph with the samples loaded (scripts/demo.sh does that).
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-runs/demo-chrono}
LIMIT=${CHRONO_LIMIT:-}
mkdir -p "$OUT"
if [ -z "${MODEL:-}" ]; then
  MODEL="$OUT/tiny-model"
  [ -d "$MODEL" ] || $KF tiny-model "$MODEL" --seed 0 >/dev/null
fi
# each generate prints its summary (stderr), then the benchmark's id (stdout, for scripts): the id is dropped
{ $KF generate chrono --domain general --from 2010 --to 2023 --seed 0 --silent
  $KF generate chrono --domain biomedical --from 2020 --to 2024 --seed 0 --silent
  $KF generate chrono --domain legal --seed 0 --silent
  $KF generate chrono --domain commonsense --seed 0 --silent
  $KF generate chrono --domain math --seed 0 --silent; } >/dev/null
$KF generate chrono --domain general --name general-generation --templates generation --seed 0 --silent >/dev/null
$KF export chrono --name general --format chroknowbench --out "$OUT/chroknowbench" >/dev/null 2>&1
SUMMARY=$($KF eval --benchmark chrono:general-generation --backend hf --model "$MODEL" --device cpu \
  --max-tokens 12 --batch-size 32 ${LIMIT:+--limit "$LIMIT"} --solver chronoprompt -S span=both \
  --out "$OUT/runs" --silent 2> "$OUT/eval.log" | tail -n 1) || { cat "$OUT/eval.log"; exit 1; }
REPORT=$($PY -c 'import json,sys; print(next(iter(json.load(open(sys.argv[1]))["runs"].values()))["report"])' \
  "$SUMMARY/summary.json")
basename "$REPORT" > "$OUT/control_run"
sed -n '/^## Chronological categories/,/^## Per-year categories/p' "$REPORT/report.md" | grep -v "^## Per-year"
sed -n '/^## ChroKnowPrompt/,/^## /p' "$REPORT/report.md" | sed '$d'
echo "(shares in % ± half the 95% interval, a bootstrap over records; Generation answers are open, so their chance level is about 0)"
