#!/usr/bin/env bash
# ChroKnow on the bundled samples: five benchmarks from the graph, one evaluated end to end with
# the tiny local model (knowledge check + ChroKnowPrompt, report with plots). Needs a running
# graph with the samples loaded (scripts/demo.sh does that); `make demo` calls this after it.
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
OUT=${OUT:-runs/demo-chrono}
mkdir -p "$OUT"
$KF generate chrono --domain general --from 2010 --to 2023 --seed 0 --silent
$KF generate chrono --domain biomedical --from 2020 --to 2024 --seed 0 --silent
$KF generate chrono --domain legal --seed 0 --silent
$KF generate chrono --domain commonsense --seed 0 --silent
$KF generate chrono --domain math --seed 0 --silent
$KF export chrono --benchmark general --format chroknowbench --out "$OUT/chroknowbench"
[ -d "$OUT/tiny-model" ] || $KF tiny-model "$OUT/tiny-model" --seed 0
$KF eval --benchmark chrono:legal --backend hf --model "$OUT/tiny-model" --device cpu --max-tokens 16 \
  --solver chronoprompt -S span=both --out "$OUT/runs" --silent
$KF query "MATCH (q:Question) WHERE q.benchmark STARTS WITH 'chrono:' RETURN q.benchmark AS benchmark, q.slice_change AS change, count(q) AS items ORDER BY benchmark, change"
