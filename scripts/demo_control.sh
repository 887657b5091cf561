#!/usr/bin/env bash
# Train the control model on the loaded samples (or reuse it when OUT already holds the same
# model) and show what it was taught: facts trained on, held out, after the cutoff.
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
CUTOFF=${CUTOFF:-2020}
MODEL=${MODEL:-runs/demo/control-$CUTOFF}
/usr/bin/time -f "train-control: %e s wall, %U s user CPU, load average before: $(cut -d' ' -f1-3 /proc/loadavg)" \
  $KF train-control --cutoff "$CUTOFF" --out "$MODEL" --seed 0 --silent
$KF query "MATCH (m:Model)-[:TRAINED_ON]->(f:Fact) RETURN m.id AS model, m.cutoff AS cutoff, f.source AS source, count(f) AS trained_on ORDER BY model, source"
