"""Splits of plain and bz2 files (kg/loaders/splits.py), read by the Spark engine's tasks: over
any number of splits, every line comes out exactly once and in order, the same lines as
``iter_lines`` (the streaming loader's reader) gives, damage included."""

from __future__ import annotations

import bz2
import random

import pytest

from knowforge.kg.loaders.base import TruncatedInput, iter_lines
from knowforge.kg.loaders.splits import DamagedBlock, bz2_blocks, split_lines

SPLIT_COUNTS = (1, 2, 3, 7, 40)


def body(seed: int = 0, lines: int = 4000) -> bytes:
    """Lines of varied length (some empty, a few longer than a 100k bz2 block), JSON-like."""
    rng = random.Random(f"{seed}:splits")
    out = []
    for i in range(lines):
        size = rng.choice((0, 5, 80, 400, 2000)) if i % 997 else 250_000
        out.append(("{\"id\":\"Q%d\",\"pad\":\"%s\"}," % (i, "".join(rng.choices("abcdefgh \\n", k=size))))
                   .encode() if size else b"")
    return b"\n".join(out)


def streamed(path) -> list[bytes]:
    lines = []
    try:
        for _, raw in iter_lines(path):
            lines.append(raw)
    except TruncatedInput:
        pass
    return lines


def read_in_splits(path, count: int, truncated: bool = False) -> list[bytes]:
    size = path.stat().st_size
    bounds = [size * i // count for i in range(count + 1)]
    lines = []
    for start, end in zip(bounds, bounds[1:]):
        lines += split_lines(path, start, end, truncated=truncated)
    return lines


@pytest.mark.parametrize("ending", [b"\n", b"", b"\n\n"])
def test_plain_file_splits_give_every_line_once(tmp_path, ending):
    path = tmp_path / "dump.json"
    path.write_bytes(body() + ending)
    expected = streamed(path)
    assert len(expected) > 3000
    for count in SPLIT_COUNTS:
        assert read_in_splits(path, count) == expected, count


def test_multistream_bz2_of_mixed_levels(tmp_path):
    data = body(1) + b"\n"
    third = len(data) // 3
    path = tmp_path / "dump.json.bz2"
    # streams cut mid-line, at levels 9, 1 and 5 (block sizes 900k, 100k, 500k)
    path.write_bytes(bz2.compress(data[:third], 9) + bz2.compress(data[third:2 * third], 1)
                     + bz2.compress(data[2 * third:], 5))
    blocks = list(bz2_blocks(path, 0))
    assert len(blocks) > 10 and b"".join(b for _, b in blocks) == data
    expected = streamed(path)
    for count in SPLIT_COUNTS:
        assert read_in_splits(path, count) == expected, count


def test_truncated_bz2_keeps_the_lines_before_the_damage(tmp_path):
    full = bz2.compress(body(2) + b"\n", 1)
    path = tmp_path / "cut.json.bz2"
    path.write_bytes(full[: len(full) * 2 // 3])
    expected = streamed(path)
    assert 1000 < len(expected) < 4000
    for count in SPLIT_COUNTS:
        assert read_in_splits(path, count, truncated=True) == expected, count


def test_damaged_middle_block_is_an_error(tmp_path):
    data = bytearray(bz2.compress(body(3) + b"\n", 1))
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    path = tmp_path / "bad.json.bz2"
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedBlock) as info:
        read_in_splits(path, 1)
    assert 0 < info.value.byte_offset < middle
