"""Spark parse throughput of a Wikidata bz2 dump against decompressing the same file.

1. Writes a synthetic ``latest-all.json`` (``make_wikidata_dump.py``; default 200,000 entity
   lines, about 1 GB) and compresses it with ``bzip2`` (the command when present).
2. Baselines, on the same file:
   - ``bz2`` streaming: the streaming loader's reader (``iter_lines``, Python's bz2), one core;
   - ``bzip2 -dc``, the native command, one core (when present);
   - a Spark read that only counts lines, with the same master and splits as the parse.
3. The Spark engine (``load_wikidata_spark``): the parse stage (every split through
   ``WikidataDocParser.parse_line``, Parquet parts) and the graph stage (merge, stubs,
   Parquet and CSV), timed apart.

Prints MB/s of uncompressed input and lines/s for each, and the ratios of the parse stage to
the baselines, all measured in this run.

    python benchmarks/spark_parse.py [--lines 200000] [--master local[2]] [--partitions N] [--keep DIR]
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
from knowforge.kg.loaders.wikidata_spark import _read_lines, load_wikidata_spark, spark_session  # noqa: E402


def compress(plain: Path) -> Path:
    target = plain.with_name(plain.name + ".bz2")
    if shutil.which("bzip2"):
        with open(target, "wb") as out:
            subprocess.run(["bzip2", "-9", "-c", str(plain)], stdout=out, check=True)
    else:
        import bz2

        with open(plain, "rb") as src, bz2.open(target, "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    return target


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=None,
                    help="splits of the file (default: Spark's, 128 MB of bz2 each, at least one per core)")
    ap.add_argument("--keep", type=Path, default=None, help="work in this folder and keep the dump")
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
        _, tc = timed(lambda: compress(plain))
        plain.unlink()
        print(f"generated {args.lines:,} entity lines ({mb:,.0f} MB) in {t:.0f}s, bzip2 -9 in {tc:.0f}s "
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
    if shutil.which("bzip2"):
        _, t_native = timed(lambda: subprocess.run(f"bzip2 -dc {dump} > /dev/null", shell=True, check=True))
        results["bzip2 -dc (native, 1 core)"] = t_native

    spark = spark_session(args.master, {}, log_file=work / "spark.log")
    cores = spark.sparkContext.defaultParallelism
    partitions = args.partitions or max(cores, 2)
    _read_lines(spark, dump, partitions).limit(1).count()  # warm-up: JVM, Python workers
    counted, t_count = timed(lambda: _read_lines(spark, dump, partitions).count())
    assert counted == lines, (counted, lines)
    results[f"Spark line count ({args.master}, {partitions} splits)"] = t_count

    result, t_total = timed(lambda: load_wikidata_spark([dump], work / "bulk", partitions=partitions,
                                                        spark=spark, overwrite=True))
    t_parse, t_graph = result.seconds["parse"], result.seconds["graph"]
    results["Spark parse stage"] = t_parse
    results["Spark graph stage (merge, stubs, Parquet, CSV)"] = t_graph
    results["Spark parse + graph (whole load)"] = t_total
    spark.stop()

    print(f"input: {lines:,} lines, {mb:,.0f} MB uncompressed, {dump.stat().st_size / 1e6:,.0f} MB bz2; "
          f"{result.counts['entities']:,} entities, {result.counts['facts']:,} facts; {cores} Spark cores")
    for name, seconds in results.items():
        print(f"{name:50s} {seconds:8.1f}s {mb / seconds:8.1f} MB/s {lines / seconds:10,.0f} lines/s")
    print(f"ratio parse / Spark line count   : {t_count / t_parse:.2f}")
    print(f"ratio parse / bz2 streaming      : {t_stream / t_parse:.2f}")
    if "bzip2 -dc (native, 1 core)" in results:
        print(f"ratio parse / bzip2 -dc          : {results['bzip2 -dc (native, 1 core)'] / t_parse:.2f}")
    print(f"ratio whole load / Spark line count: {t_count / t_total:.2f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
