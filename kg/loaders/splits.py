"""Lines of one byte range ("split") of a plain or bz2 file, decompressed with the native libbz2.

Spark's own text reader decompresses bz2 in Java (Hadoop's ``CBZip2InputStream``), several
times slower per core than libbz2, and then ships every line from the JVM to the Python
worker that parses it. Reading the split in the Python task instead removes both costs: the
task finds the bz2 blocks that start in its byte range, decompresses each one alone with
``bz2.BZ2Decompressor``, and hands the lines to the parser.

Which split reads which line follows Hadoop's rule, so that every line is read exactly once:
a split's data are the blocks (bz2) or bytes (plain) that start in ``[start, end)``; a split
that does not start the file drops everything up to its first line break (that line belongs
to the previous split), and every split reads on past its end to finish its last line, plus
one more line when its own data end exactly at a line break. Lines are split on ``\\n``
alone, as ``iter_lines`` does for the streaming loader.

A bz2 block starts with a 48-bit magic at any bit position. A block is made decompressible
alone by shifting its bits to a byte boundary behind a stream header (``BZh9``: the largest
block size, so any block fits); libbz2 checks the block's own CRC. The end-of-stream marker
and the stream's combined CRC are never fed, so a block read out of its stream is no error.
"""

from __future__ import annotations

import bz2
from collections.abc import Iterator
from pathlib import Path

BLOCK_MAGIC = 0x314159265359
EOS_MAGIC = 0x177245385090
_MAGIC_MASK = (1 << 48) - 1
READ_CHUNK = 4 << 20


class DamagedBlock(Exception):
    """A bz2 block in the middle of a file that libbz2 refuses (not a truncated tail)."""

    def __init__(self, message: str, byte_offset: int):
        super().__init__(message)
        self.byte_offset = byte_offset


def _patterns() -> list[tuple[bytes, int, int, int]]:
    """Byte patterns of both magics at each bit shift: (bytes, bytes before it, shift, magic)."""
    found = []
    for magic in (BLOCK_MAGIC, EOS_MAGIC):
        for shift in range(8):
            size = (shift + 48 + 7) // 8
            raw = (magic << (size * 8 - shift - 48)).to_bytes(size, "big")
            lead = 1 if shift else 0  # the first byte holds other bits too
            tail = 1 if (shift + 48) % 8 else 0
            found.append((raw[lead:size - tail], lead, shift, magic))
    return found


_PATTERNS = _patterns()


class _Markers:
    """The block and end-of-stream magics of a growing buffer, in bit order."""

    def __init__(self):
        self.buf = b""
        self.base = 0  # file offset of buf[0]
        # per pattern: the byte index of its last hit, -1 to search again, None for none in buf
        self._next: list[int | None] = [-1] * len(_PATTERNS)

    def append(self, data: bytes) -> None:
        self.buf += data
        # a miss may now be a hit across the old end: search those patterns again
        self._next = [-1 if n is None else n for n in self._next]

    def drop_before(self, byte: int) -> None:
        """Forget buf[:byte] (already decompressed)."""
        if byte > 0:
            self.buf = self.buf[byte:]
            self.base += byte
            self._next = [None if n is None else (n - byte if n >= byte else -1) for n in self._next]

    def first(self, from_bit: int) -> tuple[int, int] | None:
        """(bit in buf, magic) of the first marker at or after ``from_bit``, or None in this buf."""
        best = None
        buf = self.buf
        for k, (pattern, lead, shift, magic) in enumerate(_PATTERNS):
            at = self._next[k]
            search_from = max(from_bit // 8 + lead - 1, 0)
            while True:
                if at is None:
                    break
                if at < 0 or at < search_from:
                    at = buf.find(pattern, search_from)
                    if at < 0:
                        at = None
                        self._next[k] = None
                        break
                bit = (at - lead) * 8 + shift
                if bit >= from_bit and at - lead >= 0 and self._value(bit) == magic:
                    break
                search_from = at + 1
                at = -1
            if at is None:
                continue
            self._next[k] = at
            if best is None or bit < best[0]:
                best = (bit, magic)
        return best

    def _value(self, bit: int) -> int:
        start = bit // 8
        window = self.buf[start:start + 7]
        if len(window) < 7:
            window = window + bytes(7 - len(window))
        return (int.from_bytes(window, "big") >> (56 - 48 - bit % 8)) & _MAGIC_MASK


def _decompress_block(data: bytes, bit: int, end_bit: int, following: bool) -> bytes:
    """The block in bits [bit, end_bit) of data, decompressed (b"" if it is incomplete).

    With ``following``, the next marker's 48 bits are fed too: libbz2 reads the next header
    byte by byte, and a half-fed magic padded with zeros reads as a bad header.
    """
    start = bit // 8
    stop = (end_bit + 48 + 7) // 8 if following else len(data)
    chunk = data[start:stop]
    shift = bit % 8
    if shift:
        size = len(chunk)
        chunk = ((int.from_bytes(chunk, "big") << shift) & ((1 << size * 8) - 1)).to_bytes(size, "big")
    decomp = bz2.BZ2Decompressor()
    # decompress() stops when the input is used up, with output still pending: drain it
    out = [decomp.decompress(b"BZh9" + chunk)]
    while not decomp.eof and (more := decomp.decompress(b"")):
        out.append(more)
    return b"".join(out)


def bz2_blocks(path: str | Path, start: int) -> Iterator[tuple[int, bytes]]:
    """(file offset of the block's magic, its data) for each bz2 block from byte ``start`` on.

    Stops at the end of the file; a block cut off by the end of the file (a truncated
    download) gives nothing. A damaged block elsewhere raises ``DamagedBlock``.
    """
    markers = _Markers()
    with open(path, "rb") as fh:
        fh.seek(start)
        markers.base = start
        eof = False

        def find(from_bit: int, want_block: bool):
            nonlocal eof
            while True:
                hit = markers.first(from_bit)
                while hit is not None and want_block and hit[1] != BLOCK_MAGIC:
                    from_bit = hit[0] + 48
                    hit = markers.first(from_bit)
                if hit is not None or eof:
                    return hit
                more = fh.read(READ_CHUNK)
                if not more:
                    eof = True
                    continue
                markers.append(more)

        current = find(0, True)
        while current is not None:
            bit = current[0]
            following = find(bit + 48, False)
            end_bit = following[0] if following is not None else len(markers.buf) * 8
            try:
                data = _decompress_block(markers.buf, bit, end_bit, following is not None)
            except OSError as exc:
                if following is None:  # the cut tail of a truncated file
                    return
                raise DamagedBlock(f"bz2 block cannot be decompressed: {exc}",
                                   markers.base + bit // 8) from None
            if not data:
                if following is None:
                    return
                raise DamagedBlock("bz2 block is incomplete", markers.base + bit // 8)
            yield markers.base + bit // 8, data
            if following is None:
                return
            nxt = following if following[1] == BLOCK_MAGIC else find(following[0] + 48, True)
            if nxt is None:
                return
            markers.drop_before(nxt[0] // 8)
            current = (nxt[0] - (nxt[0] // 8) * 8, nxt[1])


def _plain_chunks(path: str | Path, start: int) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as fh:
        fh.seek(start)
        at = start
        while chunk := fh.read(READ_CHUNK):
            yield at, chunk
            at += len(chunk)


def split_lines(path: str | Path, start: int, end: int, *, truncated: bool = False) -> Iterator[bytes]:
    """The lines of the split ``[start, end)`` of ``path`` (bz2 when its name ends in .bz2).

    ``truncated``: the file is a cut bz2, so a line still open where its data stop is the
    damaged one and is not a line (as ``iter_lines`` drops it).
    """
    is_bz2 = str(path).lower().endswith(".bz2")
    chunks = bz2_blocks(path, start) if is_bz2 else _plain_chunks(path, start)
    rest = b""
    skipping = start > 0
    for offset, chunk in chunks:
        if offset >= end:
            if skipping:
                return  # no line starts in this split
            # read on to the end of the last line
            cut = chunk.find(b"\n")
            if cut < 0:
                rest += chunk
                continue
            yield rest + chunk[:cut]
            return
        if not is_bz2 and offset + len(chunk) > end:
            # a plain chunk across the end: the part inside first, the rest as read-on data
            inside, outside = chunk[:end - offset], chunk[end - offset:]
            chunk = inside
        else:
            outside = None
        if skipping:
            cut = chunk.find(b"\n")
            if cut >= 0:
                chunk = chunk[cut + 1:]
                skipping = False
            else:
                chunk = b""
        if chunk:
            data = rest + chunk if rest else chunk
            lines = data.split(b"\n")
            rest = lines.pop()
            yield from lines
        if outside is not None:
            if skipping:
                return
            cut = outside.find(b"\n")
            if cut >= 0:
                yield rest + outside[:cut]
                return
            rest += outside
            # the line goes on past this chunk: the following chunks are read-on data
            for _, more in chunks:
                cut = more.find(b"\n")
                if cut >= 0:
                    yield rest + more[:cut]
                    return
                rest += more
            break
    if rest and not skipping and not truncated:
        yield rest
