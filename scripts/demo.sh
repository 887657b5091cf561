#!/usr/bin/env bash
# The main job on the bundled sample data; `make demo` runs it after installing. Every step runs in
# one Python process (scripts/demo.py: one graph connection, one loaded model); see its docstring.
# Environment: OUT (default runs/demo), CUTOFF (2020), PY (.venv/bin/python), NEO4J_URI (an
# existing server instead of the managed one), KNOWFORGE_NEO4J_HOME (the managed server's data).
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PY:-.venv/bin/python}" scripts/demo.py "$@"
