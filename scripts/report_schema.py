"""Write docs/report.schema.json, the JSON Schema of report.json (``knowforge.eval.records.Report``).

Run after changing ``Report`` or ``RunRecord``: ``python scripts/report_schema.py``;
tests/test_run_records.py fails while the published file is not current.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from knowforge.eval.records import report_schema

TARGET = Path(__file__).resolve().parent.parent / "docs" / "report.schema.json"


def schema_text() -> str:
    return json.dumps(report_schema(), indent=2, sort_keys=True) + "\n"


def main() -> int:
    TARGET.write_text(schema_text(), encoding="utf-8")
    print(TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
