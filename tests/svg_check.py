"""What every report plot must be: an SVG document that parses, with marks drawn on it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

SVG = "{http://www.w3.org/2000/svg}"


def assert_svg(path: Path) -> ET.Element:
    root = ET.fromstring(path.read_bytes())
    assert root.tag == f"{SVG}svg", path
    marks = [e for e in root.iter() if e.tag in (f"{SVG}rect", f"{SVG}polyline", f"{SVG}circle")]
    assert len(marks) > 2, f"{path}: nothing drawn beyond the frame"   # the background and the frame
    return root
