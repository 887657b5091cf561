#!/usr/bin/env bash
# The main job on the bundled sample data. Run through `make demo`.
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
$KF neo4j start
$KF init
$KF load samples
$KF stats
