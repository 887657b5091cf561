#!/usr/bin/env bash
# ChroKnow on the bundled samples: five benchmarks from the graph, and the general domain's
# Generation template evaluated end to end with the control model ($MODEL; the tiny random
# model when unset): the sampling-based knowledge check + ChroKnowPrompt, report with plots.
# Needs a running graph with the samples loaded (scripts/demo.sh does that).
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
OUT=${OUT:-runs/demo-chrono}
LIMIT=${CHRONO_LIMIT:-}
mkdir -p "$OUT"
if [ -z "${MODEL:-}" ]; then
  MODEL="$OUT/tiny-model"
  [ -d "$MODEL" ] || $KF tiny-model "$MODEL" --seed 0 >/dev/null
fi
for DOMAIN in general biomedical legal commonsense math; do
  $KF generate chrono --domain "$DOMAIN" --seed 0 --silent 2>&1 | grep -v "^chrono:"
done
$KF generate chrono --domain general --name general-generation --templates generation --seed 0 --silent >/dev/null 2>&1
$KF export chrono --benchmark general --format chroknowbench --out "$OUT/chroknowbench" >/dev/null
REPORT=$($KF eval --benchmark chrono:general-generation --backend hf --model "$MODEL" --device cpu \
  --max-tokens 12 --batch-size 32 ${LIMIT:+--limit "$LIMIT"} --check slick --chronoprompt --span both \
  --out "$OUT/runs" --silent 2>/dev/null | tail -n 1)
basename "$REPORT" > "$OUT/control_run"
sed -n '/^## Chronological categories/,/^## ChroKnow plots/p' "$REPORT/report.md" | grep -v "^## ChroKnow plots"
