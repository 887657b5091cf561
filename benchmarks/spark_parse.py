"""Spark parse throughput of a Wikidata bz2 dump against decompressing the same file.

1. Writes a synthetic ``latest-all.json`` (``make_wikidata_dump.py``; default 200,000 entity
   lines, about 1 GB) and compresses it with ``bzip2 -9`` (the command when present), in
   ``--streams`` concatenated streams compressed at once (as parallel compressors write the
   real dumps; a stream's blocks are the same 900k blocks either way).
2. Baselines, on the same file:
   - ``bz2`` streaming: the streaming loader's reader (``iter_lines``, Python's bz2), one core;
   - ``bzip2 -dc``, the native command, one core (when present);
   - a Spark read that only counts lines (``spark.read.text``, Hadoop's bz2 codec in the JVM),
     with the same master and as many splits as the parse.
3. The Spark engine (``load_wikidata_spark``): the parse stage (every split decompressed by
   its task with libbz2 and its lines through ``WikidataDocParser.parse_line``, Parquet parts)
   and the graph stage (merge, stubs, Parquet and CSV), timed apart.

Prints MB/s of uncompressed input and lines/s for each, and the ratios of the parse stage to
the baselines, all measured in this run; then the CPU seconds of the first split in this
process, decompression alone against the whole parse task (wall-time ratios swing with other
jobs on the machine; CPU time hardly does).

    python benchmarks/spark_parse.py [--lines 200000] [--master local[2]] [--partitions N] [--keep DIR]
                                     [--streams 2] [--no-native] [--conf KEY=VALUE ...]

``--conf`` sets a Spark option, e.g. ``--conf spark.sql.shuffle.partitions=4`` for a tiny input
(the default 200 shuffle partitions make the graph stage of a few hundred lines take minutes).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_wikidata_dump import write_dump  # noqa: E402

from knowforge.kg.loaders.base import iter_lines  # noqa: E402
from knowforge.kg.loaders.splits import split_lines  # noqa: E402
from knowforge.kg.loaders.wikidata_common import default_properties  # noqa: E402
from knowforge.kg.loaders.wikidata_spark import (  # noqa: E402
    load_wikidata_spark,
    parse_split,
    plan_splits,
    spark_session,
)


def _cuts(plain: Path, streams: int) -> list[int]:
    """Byte offsets that cut the file into ``streams`` pieces at line ends."""
    size = plain.stat().st_size
    cuts = [0]
    with open(plain, "rb") as fh:
        for i in range(1, streams):
            fh.seek(max(size * i // streams, cuts[-1]))
            fh.readline()
            cuts.append(fh.tell())
    return cuts + [size]


def _compress_piece(plain: Path, start: int, stop: int, target: Path) -> None:
    import bz2

    with open(plain, "rb") as src, open(target, "wb") as out:
        src.seek(start)
        if shutil.which("bzip2"):
            proc = subprocess.Popen(["bzip2", "-9", "-c"], stdin=subprocess.PIPE, stdout=out)
            left = stop - start
            while left > 0:
                chunk = src.read(min(left, 1 << 20))
                proc.stdin.write(chunk)
                left -= len(chunk)
            proc.stdin.close()
            if proc.wait():
                raise RuntimeError("bzip2 failed")
        else:
            out.write(bz2.compress(src.read(stop - start), 9))


def compress(plain: Path, streams: int) -> Path:
    """``plain`` as bz2 (level 9) in ``streams`` concatenated streams, compressed in parallel."""
    from concurrent.futures import ThreadPoolExecutor

    target = plain.with_name(plain.name + ".bz2")
    cuts = _cuts(plain, streams)
    pieces = [plain.with_name(f"{plain.name}.{i}.bz2") for i in range(streams)]
    with ThreadPoolExecutor(streams) as pool:
        list(pool.map(lambda i: _compress_piece(plain, cuts[i], cuts[i + 1], pieces[i]), range(streams)))
    with open(target, "wb") as out:
        for piece in pieces:
            with open(piece, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
            piece.unlink()
    return target


def spark_option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=None,
                    help="splits of the file (default: the loader's, 64 MB each, at least two per core)")
    ap.add_argument("--keep", type=Path, default=None, help="work in this folder and keep the dump")
    ap.add_argument("--streams", type=int, default=2, help="bz2 streams compressed in parallel")
    ap.add_argument("--no-native", action="store_true", help="skip the bzip2 -dc baseline")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", type=spark_option,
                    help="a Spark option (repeatable)")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="knowforge-spark-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    dump = work / "latest-all.json.bz2"
    if dump.exists():
        print(f"reusing {dump}")
        mb = None
    else:
        plain, t = timed(lambda: write_dump(work / "latest-all.json", args.lines))
        mb = plain.stat().st_size / 1e6
        _, tc = timed(lambda: compress(plain, args.streams))
        plain.unlink()
        print(f"generated {args.lines:,} entity lines ({mb:,.0f} MB) in {t:.0f}s, bzip2 -9 ({args.streams} streams) in {tc:.0f}s "
              f"→ {dump.stat().st_size / 1e6:,.0f} MB")

    def stream_count():
        n = size = 0
        for _, raw in iter_lines(dump):
            n += 1
            size += len(raw) + 1
        return n, size

    (lines, size), t_stream = timed(stream_count)
    mb = size / 1e6
    results = {"bz2 streaming (Python, 1 core)": t_stream}
    if shutil.which("bzip2") and not args.no_native:
        _, t_native = timed(lambda: subprocess.run(f"bzip2 -dc {dump} > /dev/null", shell=True, check=True))
        results["bzip2 -dc (native, 1 core)"] = t_native

    spark = spark_session(args.master, dict(args.conf), log_file=work / "spark.log")
    cores = spark.sparkContext.defaultParallelism
    partitions = args.partitions or len(plan_splits(dump, None, cores))

    def spark_lines():
        # as many splits as the parse: Spark's file splits of 1/partitions of the file each
        spark.conf.set("spark.sql.files.maxPartitionBytes", str(dump.stat().st_size // partitions + 1))
        spark.conf.set("spark.sql.files.openCostInBytes", "1")
        return spark.read.text(str(dump.resolve()))

    spark_lines().limit(1).count()  # warm-up: the JVM's first job
    counted, t_count = timed(lambda: spark_lines().count())
    spark.conf.unset("spark.sql.files.maxPartitionBytes")
    spark.conf.unset("spark.sql.files.openCostInBytes")
    assert counted == lines, (counted, lines)
    results[f"Spark line count ({args.master}, {partitions} splits)"] = t_count

    def split_count(name, start, end, truncated):
        return sum(1 for _ in split_lines(name, start, end, truncated=truncated))

    ranges = plan_splits(dump, partitions, cores)
    name = str(dump.resolve())
    # warm-up: start the Python workers (reused by later jobs) and import the parser in them
    spark.sparkContext.parallelize(range(len(ranges)), len(ranges)).map(
        lambda _: bool(__import__("knowforge.kg.loaders.wikidata_spark"))).count()
    counted, t_split = timed(lambda: sum(spark.sparkContext.parallelize(ranges, len(ranges))
                                         .map(lambda r: split_count(name, r[0], r[1], False)).collect()))
    assert counted == lines, (counted, lines)
    results["Spark tasks, libbz2 line count (same splits)"] = t_split

    result, t_total = timed(lambda: load_wikidata_spark([dump], work / "bulk", partitions=partitions,
                                                        spark=spark, overwrite=True))
    t_parse, t_graph = result.seconds["parse"], result.seconds["graph"]
    results["Spark parse stage"] = t_parse
    results["Spark graph stage (merge, stubs, Parquet, CSV)"] = t_graph
    results["Spark parse + graph (whole load)"] = t_total
    spark.stop()

    # CPU seconds (not wall) of the first split in this process, the decompression alone and
    # the whole parse task: a ratio that other jobs' load on the machine hardly moves.
    def cpu(fn):
        start = time.process_time()
        fn()
        return time.process_time() - start

    first_start, first_end = ranges[0]
    cpu_decompress = cpu(lambda: sum(1 for _ in split_lines(name, first_start, first_end)))
    cpu_parse = cpu(lambda: parse_split(name, first_start, first_end, file_index=0,
                                        properties=default_properties(), wanted=None,
                                        parts_dir=str(work / "cpu-parts"), truncated=False))
    shutil.rmtree(work / "cpu-parts", ignore_errors=True)

    print(f"input: {lines:,} lines, {mb:,.0f} MB uncompressed, {dump.stat().st_size / 1e6:,.0f} MB bz2; "
          f"{result.counts['entities']:,} entities, {result.counts['facts']:,} facts; {cores} Spark cores")
    for name, seconds in results.items():
        print(f"{name:50s} {seconds:8.1f}s {mb / seconds:8.1f} MB/s {lines / seconds:10,.0f} lines/s")
    print(f"ratio parse / Spark line count   : {t_count / t_parse:.2f}")
    print(f"ratio parse / bz2 streaming      : {t_stream / t_parse:.2f}")
    print(f"ratio parse / libbz2 line count  : {t_split / t_parse:.2f}")
    if "bzip2 -dc (native, 1 core)" in results:
        print(f"ratio parse / bzip2 -dc          : {results['bzip2 -dc (native, 1 core)'] / t_parse:.2f}")
    print(f"ratio whole load / Spark line count: {t_count / t_total:.2f}")
    print(f"first split in one process: decompression {cpu_decompress:.1f} CPU s, parse task "
          f"{cpu_parse:.1f} CPU s, ratio {cpu_decompress / cpu_parse:.2f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
