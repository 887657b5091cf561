"""Wikidata JSON dumps on Apache Spark: every split of the dump through the streaming loader's
parser, out to CSV files for ``neo4j-admin database import`` and Parquet.

One parser, two drivers. ``load_wikidata_json`` streams a dump through
``WikidataDocParser.parse_line`` into the store; here Spark runs one task per byte range of
the (bz2 or plain) file, the task reads its range itself (``splits.split_lines``: libbz2 on
the bz2 blocks that start in it, lines split as the streaming reader splits them; no line
travels between the JVM and Python) and runs the same ``parse_line`` with the same property
and entity filters, the same qualifier rules and the same accounting of bad records by reason. Nothing goes to
Neo4j: the output folder is what ``knowforge neo4j import`` loads.

1. *parse* (Python, one task per split): records → Parquet parts, one row of counters per
   split. Lines are numbered within their split; the splits' line counts then give every
   problem its line in the file, as the streaming loader reports it.
2. *graph* (Spark SQL): entities and facts seen twice are merged as the UNWIND writer merges
   them (later non-missing properties win, labels add up), stub entities are the subjects
   and objects that no document loads (one per id), then Parquet and the CSV files are
   written, with a header file per group and ``manifest.json``.

A truncated bz2 (no end-of-stream marker) keeps every line before the damage, reported as
``truncated_input`` with its line, as the streaming loader does. ``.gz`` files cannot be
split and are refused (use the ``.bz2`` dump, or the streaming loader).
"""

from __future__ import annotations

import gc
import json
import logging
import os
import shlex
import shutil
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from knowforge.kg.bulk import layout
from knowforge.kg.loaders.base import MAX_LISTED_PROBLEMS, LoadReport, Problem
from knowforge.kg.loaders.splits import DamagedBlock, split_lines
from knowforge.kg.loaders.wikidata_common import (
    default_properties,
    parse_property_list,
    read_entity_list,
    vocabulary,
)
from knowforge.kg.loaders.wikidata_json import (
    PROBLEM_REASONS,
    SOURCE,
    WikidataDocParser,
)
from knowforge.kg.neo4j_cds import extra_jvm_options
from knowforge.kg.records import RelationRecord

from knowforge.errors import ConfigError, InputError

log = logging.getLogger(__name__)

StageProgress = Callable[[str, int, int], None]
"""Called with (phase, tasks done, tasks in the phase) while Spark works."""

DEFAULT_MASTER = "local[*]"
ROWS_PER_GROUP = 50_000
# The end of a bz2 stream: a 48-bit magic, the stream CRC, then padding to a byte.
_BZ2_EOS = 0x177245385090


@dataclass
class SparkLoadResult:
    """What ``load_wikidata_spark`` wrote, and the load report of the records."""

    report: LoadReport
    out_dir: Path
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    splits: int = 0  # parse tasks' splits over all files


# ---- the Spark session -----------------------------------------------------------------------

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def spark_session(master: str | None = None, conf: dict[str, str] | None = None, *,
                  log_file: Path | None = None):
    """A SparkSession, reusing the active one; a new one logs to ``log_file``, not the console.

    Workers run this interpreter (``PYSPARK_PYTHON``), so they import this knowforge. On a
    cluster every executor needs knowforge installed, and the output folder must be on a
    filesystem they all write.
    """
    try:
        from pyspark import SparkConf, SparkContext
        from pyspark.java_gateway import launch_gateway
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise ConfigError("the Spark engine needs PySpark: pip install 'knowforge[spark]'") from exc
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark(\.|$)")
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings = {
        "spark.master": master or DEFAULT_MASTER,
        "spark.app.name": "knowforge",
        "spark.ui.showConsoleProgress": "false",
        "spark.ui.enabled": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.driver.memory": os.environ.get("KNOWFORGE_SPARK_DRIVER_MEMORY", "2g"),
        **(conf or {}),
    }
    if (master or DEFAULT_MASTER).startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    log_dir = Path(tempfile.mkdtemp(prefix="knowforge-spark-"))
    log4j = log_dir / "log4j2.properties"
    log4j.write_text(_LOG4J)
    java_opts = " ".join([f"-Dlog4j2.configurationFile=file:{log4j}",
                          *(shlex.quote(o) for o in extra_jvm_options())])
    settings["spark.driver.extraJavaOptions"] = (
        settings.get("spark.driver.extraJavaOptions", "") + " " + java_opts).strip()
    spark_conf = SparkConf(loadDefaults=True)
    for key, value in settings.items():
        spark_conf.set(key, value)
    log_path = log_file or log_dir / "spark.log"
    sink = open(log_path, "ab")  # the JVM's own console (start-up notes, warnings) goes here
    gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": sink, "stderr": sink})
    sink.close()
    context = SparkContext(conf=spark_conf, gateway=gateway)
    context.setLogLevel("ERROR")
    log.info("Spark %s, master %s; its log: %s", context.version, context.master, log_path)
    return SparkSession(context)


class _StageWatcher:
    """Polls Spark's status tracker and reports the tasks of the running phase."""

    def __init__(self, spark, progress: StageProgress | None):
        self.tracker = spark.sparkContext.statusTracker()
        self.progress = progress
        self.phase = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True) if progress else None

    def __enter__(self):
        if self._thread:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            done = total = 0
            try:
                for stage_id in self.tracker.getActiveStageIds():
                    info = self.tracker.getStageInfo(stage_id)
                    if info:
                        done += info.numCompletedTasks
                        total += info.numTasks
            except Exception:  # noqa: BLE001 - progress is best effort; the job reports errors
                continue
            if total and self.phase:
                self.progress(self.phase, done, total)


# ---- checks on the input ---------------------------------------------------------------------

def bz2_is_complete(path: Path) -> bool:
    """Whether a bz2 file ends with an end-of-stream marker (a cut download does not)."""
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size < 14:
            return False
        fh.seek(size - 11)
        tail = int.from_bytes(fh.read(11), "big")
    # marker (48 bits) + CRC (32 bits) + 0..7 bits of padding at the very end
    return any((tail >> (32 + pad)) & ((1 << 48) - 1) == _BZ2_EOS for pad in range(8))


def _check_inputs(paths: list[Path]) -> None:
    for path in paths:
        if str(path).lower().endswith(".gz"):
            raise ConfigError(f"{path}: a .gz file cannot be split, so Spark would read it on one "
                              "core; use the .bz2 dump (latest-all.json.bz2) or the streaming "
                              "loader (knowforge load wikidata without --engine spark)")
        if not path.is_file():
            raise InputError("no such file", path=str(path))


# ---- the parse task (runs on the executors) ----------------------------------------------------

class _Columns:
    """One Parquet part: rows kept as tuples in the schema's column order (its last three, the
    position in the file, apart), written as columns every ROWS_PER_GROUP rows."""

    def __init__(self, path: Path, schema, file_index: int, block_start: int):
        import pyarrow.parquet as pq

        self.path = path
        self.tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
        self.schema = schema
        self.file_index = file_index
        self.block_start = block_start
        self.pending: list[tuple] = []
        self.lines: list[int] = []
        # Parts are read once, by the graph stage: no dictionary pages (they barely shrink
        # them, snappy does) and no statistics (nothing is filtered on them).
        self.writer = pq.ParquetWriter(self.tmp, schema, compression="snappy", use_dictionary=False,
                                       write_statistics=False)
        self.rows = 0

    def add(self, row: tuple, line: int) -> None:
        self.pending.append(row)
        self.lines.append(line)
        if len(self.pending) >= ROWS_PER_GROUP:
            self.flush()

    def extend(self, rows: list[tuple], line: int) -> None:
        self.pending += rows
        self.lines += [line] * len(rows)
        if len(self.pending) >= ROWS_PER_GROUP:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa

        if self.pending:
            # One Arrow array per column from the transposed rows: Arrow's C++ converter reads
            # each list at once (a third of the time it takes on a dict per row).
            n = len(self.pending)
            self.rows += n
            fields = list(self.schema)
            arrays = [pa.array(column, type=f.type) for column, f in zip(zip(*self.pending), fields)]
            arrays += [pa.array([self.file_index] * n, type=pa.int32()),
                       pa.array([self.block_start] * n, type=pa.int64()),
                       pa.array(self.lines, type=pa.int64())]
            self.writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=self.schema))
            self.pending = []
            self.lines = []

    def close(self) -> None:
        self.flush()
        self.writer.close()
        os.replace(self.tmp, self.path)  # a retried task writes the same name again


def _arrow_type(kind: str):
    import pyarrow as pa

    base = {"string": pa.string(), "double": pa.float64(), "long": pa.int64(), "boolean": pa.bool_()}
    return pa.list_(base[kind[:-2]]) if kind.endswith("[]") else base[kind]


def part_schemas():
    """Arrow schemas of the parse parts: node columns + position in the file."""
    import pyarrow as pa

    position = [("file_index", pa.int32()), ("block_start", pa.int64()), ("split_line", pa.int64())]
    entities = pa.schema([(c.name, _arrow_type(c.kind)) for c in layout.ENTITY_COLUMNS] + position)
    facts = pa.schema([(c.name, _arrow_type(c.kind))
                       for c in layout.FACT_COLUMNS + layout.FACT_EXTRA_COLUMNS] + position)
    return entities, facts


class _Split:
    """The state of one split while its lines go by."""

    def __init__(self, file_index: int, block_start: int, parts_dir: Path, source_file: str):
        self.file_index = file_index
        self.block_start = block_start
        self.parts_dir = parts_dir
        self.source_file = source_file
        self.lines = 0
        self.records_read = 0
        self.entities = 0
        self.facts = 0
        self.skipped: Counter = Counter()
        self.problems: list[tuple[str, str, int]] = []
        self.problem_count = 0
        self.relations: list[tuple[int, str, str, str | None]] = []
        self.properties: set[str] = set()
        self.multiline = False
        self.fact_repeats = False
        self.damaged: tuple[int, str] | None = None
        self._entities: _Columns | None = None
        self._facts: _Columns | None = None

    def part(self, kind: str, schema) -> _Columns:
        attr = "_entities" if kind == "entities" else "_facts"
        current = getattr(self, attr)
        if current is None:
            folder = self.parts_dir / kind
            folder.mkdir(parents=True, exist_ok=True)
            current = _Columns(folder / f"{self.file_index:04d}-{self.block_start:016d}.parquet", schema,
                               self.file_index, self.block_start)
            setattr(self, attr, current)
        return current

    def problem(self, reason: str, message: str) -> None:
        self.skipped[reason] += 1
        self.problem_count += 1
        if len(self.problems) < MAX_LISTED_PROBLEMS:
            self.problems.append((reason, message, self.lines))

    def finish(self) -> dict:
        for part in (self._entities, self._facts):
            if part is not None:
                part.close()
        return {"file_index": self.file_index, "block_start": self.block_start, "lines": self.lines, "records_read": self.records_read,
                "entities": self.entities, "facts": self.facts, "skipped": dict(self.skipped),
                "problems": self.problems, "problem_count": self.problem_count,
                "relations": self.relations, "properties": sorted(self.properties),
                "multiline": self.multiline, "fact_repeats": self.fact_repeats, "damaged": self.damaged}


def _has_line_break(values: Iterable) -> bool:
    for value in values:
        if isinstance(value, str) and ("\n" in value or "\r" in value):
            return True
        if isinstance(value, list) and any(isinstance(v, str) and ("\n" in v or "\r" in v) for v in value):
            return True
    return False


def parse_split(path: str, start: int, end: int, *, file_index: int, properties: frozenset[str],
                wanted: frozenset[str] | None, parts_dir: str, truncated: bool) -> dict:
    """The parse task: the lines of one split of the file through the streaming loader's parser,
    records to Parquet parts, and the split's counters (returned)."""
    # Every full collection in the loop would walk all the worker's objects (the modules of
    # pyarrow, pandas, the driver...) again: they are set aside while the task runs (freeze is
    # O(1); the collector still sees, and collects, what the task makes), and given back after.
    # A statement allocates a dozen containers, none in a cycle: the youngest generation is
    # collected every 50,000 allocations rather than every 700 (py-spy: 6% of a worker's time).
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 50_000), *thresholds[1:])
    try:
        return _parse_split(path, start, end, file_index=file_index, properties=properties,
                            wanted=wanted, parts_dir=parts_dir, truncated=truncated)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _parse_split(path: str, start: int, end: int, *, file_index: int, properties: frozenset[str],
                 wanted: frozenset[str] | None, parts_dir: str, truncated: bool) -> dict:
    source_file = Path(path).name
    parse_line = WikidataDocParser(properties, source_file=source_file).parse_line
    fact_row, entity_row = layout.fact_row, layout.entity_row
    entity_schema, fact_schema = part_schemas()
    split = _Split(file_index, start, Path(parts_dir), source_file)
    entity_part = fact_part = None
    skipped = split.skipped
    try:
        for raw in split_lines(path, start, end, truncated=truncated):
            split.lines += 1
            try:
                parsed = parse_line(raw, wanted)
            except ValueError as exc:
                split.records_read += 1
                split.problem("malformed_json", f"malformed JSON: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - as the streaming loader: reported, never fatal
                split.records_read += 1
                split.problem("unreadable_record", f"{type(exc).__name__}: {str(exc)[:300]}")
                continue
            if parsed is None:
                continue
            split.records_read += 1
            if parsed.filtered:
                skipped["not_in_entity_list"] += 1
                continue
            for reason, message in parsed.skipped:
                if reason in PROBLEM_REASONS:
                    split.problem(reason, message)
                else:
                    skipped[reason] += 1
            if parsed.relation:
                rel = parsed.relation
                split.relations.append((split.lines, rel.id, rel.label, rel.description))
            entity, facts = parsed.entity, parsed.facts
            try:
                entity_values = entity_row(entity) if entity else None
                fact_rows = [fact_row(f) for f in facts]
            except layout.NotRepresentable as exc:
                split.problem("not_bulk_representable", f"{exc} (document left out)")
                continue
            if not split.multiline and (b"\\n" in raw or b"\\r" in raw or b"\\u000" in raw) \
                    and ((entity_values is not None and _has_line_break(entity_values))
                         or any(_has_line_break(row) for row in fact_rows)):
                split.multiline = True
            if entity_values is not None:
                if entity_part is None:
                    entity_part = split.part("entities", entity_schema)
                entity_part.add(entity_values, split.lines)
                split.entities += 1
            if fact_rows:
                if fact_part is None:
                    fact_part = split.part("facts", fact_schema)
                fact_part.extend(fact_rows, split.lines)
                if len(fact_rows) > 1 and len({row[0] for row in fact_rows}) < len(fact_rows):
                    split.fact_repeats = True  # one statement twice in a document: merged later
                split.facts += len(fact_rows)
                split.properties.update([f.relation for f in facts])
    except DamagedBlock as exc:
        split.damaged = (exc.byte_offset, str(exc))
    return split.finish()


def reference_split(path: str, start: int, end: int, *, properties: frozenset[str],
                    entities: frozenset[str], truncated: bool) -> list[str]:
    """The ``--entities`` first pass over one split: the items the listed ones point to."""
    parser = WikidataDocParser(properties)
    refs: set[str] = set()
    try:
        for raw in split_lines(path, start, end, truncated=truncated):
            refs |= parser.referenced_line(raw, entities)
    except DamagedBlock:
        pass  # the parse pass reports it
    return sorted(refs)


# ---- the driver ---------------------------------------------------------------------------------

SPLIT_BYTES = 64 << 20


def plan_splits(path: Path, partitions: int | None, cores: int) -> list[tuple[int, int]]:
    """Byte ranges of the file, one task each: ``partitions`` of them, or by default one per
    64 MB and at least two per core (a task that lands on a busy core holds up the stage less)."""
    size = path.stat().st_size
    count = partitions or max(-(-size // SPLIT_BYTES), 2 * cores)
    count = max(1, min(count, size))
    return [(size * i // count, size * (i + 1) // count) for i in range(count)]


def _run_splits(spark, path: Path, partitions: int | None, task: Callable) -> list:
    """``task(path, start, end, truncated)`` on every split of the file, one Spark task each."""
    context = spark.sparkContext
    ranges = plan_splits(path, partitions, context.defaultParallelism)
    name = str(path.resolve())
    truncated = str(path).lower().endswith(".bz2") and not bz2_is_complete(path)
    return (context.parallelize(ranges, len(ranges))
            .map(lambda r: task(name, r[0], r[1], truncated))
            .collect())


def load_wikidata_spark(paths: Iterable[str | Path], out_dir: str | Path, *,
                        properties: Iterable[str] | None = None,
                        entities: Iterable[str] | None = None, strict: bool = False,
                        master: str | None = None, partitions: int | None = None,
                        spark_conf: dict[str, str] | None = None, overwrite: bool = False,
                        spark=None, progress: StageProgress | None = None) -> SparkLoadResult:
    """Parse Wikidata JSON dumps with Spark into ``out_dir`` (CSV for the import tool, Parquet).

    ``partitions`` forces that many splits per file (default: ``plan_splits``'s, 64 MB each,
    at least two per core).
    ``spark`` reuses a session (tests share one); otherwise one is started on ``master``
    (default ``local[*]``) with ``spark_conf``. ``strict`` stops before writing anything
    when a record is bad, naming the first one.
    """
    started = time.monotonic()
    paths = [Path(p) for p in paths]
    _check_inputs(paths)
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise ConfigError(f"{out} is not empty; choose another --out or pass --overwrite")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    props = frozenset(properties) if properties is not None else default_properties()
    spark = spark or spark_session(master, spark_conf, log_file=out / "spark.log")
    parts = out / "_parts"
    report = LoadReport(source=SOURCE)
    result = SparkLoadResult(report=report, out_dir=out)
    stats_by_file: list[list[dict]] = []
    with _StageWatcher(spark, progress) as watcher:
        wanted = None
        if entities is not None:
            watcher.phase = "entity list"
            wanted = _with_references(spark, paths, frozenset(entities), props, partitions)
        t0 = time.monotonic()
        for index, path in enumerate(paths):
            watcher.phase = f"parse {path.name}"
            stats_by_file.append(_parse_file(spark, path, index, props, wanted, parts, partitions))
            report.files.append(str(path))
        result.seconds["parse"] = time.monotonic() - t0
        result.splits = sum(len(stats) for stats in stats_by_file)
        offsets, relations, properties_seen, multiline, fact_repeats = _account(report, paths, stats_by_file)
        if strict and report.problem_count:
            first = report.problems[0]
            shutil.rmtree(parts, ignore_errors=True)
            raise InputError(f"{first.message} [{first.reason}] (--strict: nothing was written)",
                             path=first.path, line=first.line)
        t0 = time.monotonic()
        watcher.phase = "graph"
        relation_rows = _relation_rows(relations, properties_seen)
        result.counts = _write_graph(spark, out, parts, offsets, relation_rows, multiline, fact_repeats,
                                     report, [str(p) for p in paths])
        result.seconds["graph"] = time.monotonic() - t0
    shutil.rmtree(parts, ignore_errors=True)
    report.entities_written = result.counts["entities"]
    report.facts_written = result.counts["facts"]
    report.relations_written = result.counts["relations"]
    report.seconds = time.monotonic() - started
    layout_manifest = json.loads((out / layout.MANIFEST).read_text())
    layout_manifest["load_report"] = report.as_dict()
    (out / layout.MANIFEST).write_text(json.dumps(layout_manifest, indent=2, ensure_ascii=False) + "\n")
    return result


def run_spark_load(paths: Iterable[str | Path], out_dir: str | Path, *, strict: bool = False,
                   properties: str | None = None, entities_file: str | None = None,
                   master: str | None = None, spark_conf: dict[str, str] | None = None,
                   partitions: int | None = None, overwrite: bool = False,
                   progress: StageProgress | None = None) -> SparkLoadResult:
    """``knowforge load wikidata --engine spark``: the textual options → ``load_wikidata_spark``."""
    props = parse_property_list(properties) if properties else None
    entities = read_entity_list(entities_file) if entities_file else None
    return load_wikidata_spark(paths, out_dir, properties=props, entities=entities, strict=strict,
                               master=master, spark_conf=spark_conf, partitions=partitions,
                               overwrite=overwrite, progress=progress)


def _with_references(spark, paths, entities, props, partitions) -> frozenset[str]:
    wanted = set(entities)
    for path in paths:
        def task(name, start, end, truncated):
            return reference_split(name, start, end, properties=props, entities=entities, truncated=truncated)

        for refs in _run_splits(spark, path, partitions, task):
            wanted.update(refs)
    return frozenset(wanted)


def _parse_file(spark, path: Path, index: int, props, wanted, parts: Path, partitions) -> list[dict]:
    wanted_bc = spark.sparkContext.broadcast(wanted) if wanted is not None else None
    parts_dir = str(parts)

    def task(name, start, end, truncated):
        return parse_split(name, start, end, file_index=index, properties=props,
                           wanted=wanted_bc.value if wanted_bc is not None else None,
                           parts_dir=parts_dir, truncated=truncated)

    try:
        stats = _run_splits(spark, path, partitions, task)
    finally:
        if wanted_bc is not None:
            wanted_bc.unpersist()
    stats.sort(key=lambda s: s["block_start"])
    damaged = [s["damaged"] for s in stats if s["damaged"]]
    if damaged:
        offset, message = damaged[0]
        raise InputError(f"{message} (at byte {offset:,} of the compressed file)", path=str(path))
    return stats


def _account(report: LoadReport, paths: list[Path], stats_by_file: list[list[dict]]):
    """Sum the splits' counters into the report; problems get their line in the file."""
    offsets: list[tuple[int, int, int]] = []
    relations: dict[str, tuple[tuple[int, int], RelationRecord]] = {}
    properties_seen: set[str] = set()
    multiline = fact_repeats = False
    problems: list[Problem] = []
    for index, (path, splits) in enumerate(zip(paths, stats_by_file)):
        before = 0
        for split in splits:
            offsets.append((index, split["block_start"], before))
            report.records_read += split["records_read"]
            report.skipped.update(split["skipped"])
            report.problem_count += split["problem_count"]
            for reason, message, line in split["problems"]:
                problems.append(Problem(reason, message, str(path), before + line))
            for line, pid, label, description in split["relations"]:
                relations[pid] = max(relations.get(pid, ((-1, -1), None)),
                                     ((index, before + line), RelationRecord(id=pid, label=label, source=SOURCE,
                                                                             description=description)),
                                     key=lambda item: item[0])
            properties_seen.update(split["properties"])
            multiline = multiline or split["multiline"]
            fact_repeats = fact_repeats or split["fact_repeats"]
            before += split["lines"]
        if str(path).lower().endswith(".bz2") and not bz2_is_complete(path):
            problems.append(Problem("truncated_input", "compressed file ended before the end-of-stream "
                                    "marker (the download is truncated)", str(path), before + 1, fatal=True))
            report.skipped["truncated_input"] += 1
            report.problem_count += 1
            report.errors += 1
    problems.sort(key=lambda p: (paths.index(Path(p.path)), p.line or 0))
    report.problems = problems[:MAX_LISTED_PROBLEMS]
    return offsets, relations, properties_seen, multiline, fact_repeats


def _relation_rows(relations, properties_seen) -> list[dict]:
    """The Relation vocabulary, as load_wikidata_json writes it."""
    vocab = vocabulary()
    rows = []
    for pid in sorted(properties_seen | set(relations)):
        record = relations[pid][1] if pid in relations else None
        if record is None and vocab.property_label(pid):
            record = RelationRecord(id=pid, label=vocab.property_label(pid), source=SOURCE)
        if record is not None:
            rows.append(layout.relation_values(record))
    return rows


# ---- the graph stage (Spark SQL) -----------------------------------------------------------------

_CSV_OPTIONS = {"header": "false", "sep": ",", "quote": '"', "escape": '"', "escapeQuotes": "true",
                "quoteAll": "false", "nullValue": "", "emptyValue": '""', "lineSep": "\n",
                "ignoreLeadingWhiteSpace": "false", "ignoreTrailingWhiteSpace": "false",
                "encoding": "UTF-8"}


def _merge_repeats(df, repeated, columns: list[str], order):
    """Rows with the same id merged as ``SET n += props`` merges them: the last non-missing value
    of each property wins, labels add up. ``repeated``: the ids that occur more than once."""
    from pyspark.sql import functions as F

    once = df.join(repeated, "id", "left_anti")
    many = df.join(repeated, "id", "left_semi")
    aggs = []
    for name in columns:
        if name == "id":
            continue
        if name == "labels":
            aggs.append(F.array_distinct(F.flatten(F.collect_list("labels"))).alias("labels"))
        else:
            aggs.append(F.max_by(F.col(name), F.when(F.col(name).isNotNull(), order)).alias(name))
    merged = many.groupBy("id").agg(*aggs)
    return once.select(*columns).unionByName(merged.select(*columns))


def _parquet_rows(folder: Path, column: str | None = None) -> int:
    """Rows in a Parquet folder (or rows where ``column`` is not null), from the footers alone."""
    import pyarrow.parquet as pq

    total = 0
    for path in folder.glob("*.parquet"):
        meta = pq.ParquetFile(path).metadata
        for i in range(meta.num_row_groups):
            group = meta.row_group(i)
            total += group.num_rows
            if column is not None:
                index = next(j for j in range(group.num_columns)
                             if group.column(j).path_in_schema == column)
                stats = group.column(index).statistics
                total -= stats.null_count if stats is not None and stats.has_null_count else 0
    return total


def _write_graph(spark, out: Path, parts: Path, offsets, relation_rows, multiline: bool,
                 fact_repeats: bool, report: LoadReport, sources: list[str]) -> dict[str, int]:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import functions as F

    entity_names = [c.name for c in layout.ENTITY_COLUMNS]
    fact_names = [c.name for c in layout.FACT_COLUMNS + layout.FACT_EXTRA_COLUMNS]
    entity_schema, fact_schema = part_schemas()
    offsets_df = F.broadcast(spark.createDataFrame(offsets, "file_index int, block_start long, offset long"))

    def read(kind: str, schema):
        folder = parts / kind
        if folder.is_dir() and any(folder.glob("*.parquet")):
            df = spark.read.parquet(str(folder))
        else:  # nothing of this kind in the input
            df = spark.createDataFrame([], _spark_schema(schema))
        return (df.join(offsets_df, ["file_index", "block_start"])
                .withColumn("line", F.col("offset") + F.col("split_line")))

    entities = read("entities", entity_schema).select(*entity_names, "file_index", "line")
    facts = read("facts", fact_schema).select(*fact_names, "file_index", "line")
    order = F.struct("file_index", "line")
    entity_ids = entities.groupBy("id").count().cache()
    repeated = entity_ids.where("count > 1").select("id")
    if repeated.limit(1).count():
        entities = _merge_repeats(entities, repeated, entity_names + ["file_index", "line"], order)
        fact_repeats = True  # a document read twice repeats its statements too
    if fact_repeats:
        repeated_facts = facts.groupBy("id").count().where("count > 1").select("id")
        facts = _merge_repeats(facts, repeated_facts, fact_names + ["file_index", "line"], order)
    # Subjects and objects that no document loads become stubs, named by their first reference.
    refs = (facts.select(F.col("subject_id").alias("id"), F.col("subject_name").alias("name"),
                         F.struct("file_index", "line", F.lit(0).alias("role")).alias("ref"))
            .unionByName(facts.where(F.col("object_id").isNotNull())
                         .select(F.col("object_id").alias("id"), F.col("object_name").alias("name"),
                                 F.struct("file_index", "line", F.lit(1).alias("role")).alias("ref"))))
    stubs = (refs.join(entity_ids.select("id"), "id", "left_anti").groupBy("id")
             .agg(F.min_by(F.coalesce(F.col("name"), F.col("id")), F.col("ref")).alias("name"))
             .select(*[_stub_column(c) for c in layout.ENTITY_COLUMNS], F.lit(None).cast("long").alias("line")))

    parquet = out / "parquet"
    entities.drop("file_index").write.parquet(str(parquet / "entities"))
    stubs.write.parquet(str(parquet / "stubs"))
    facts.drop("file_index").write.parquet(str(parquet / "facts"))
    entity_ids.unpersist()
    (parquet / "relations").mkdir(parents=True, exist_ok=True)
    relation_schema = pa.schema([(c.name, _arrow_type(c.kind)) for c in layout.RELATION_COLUMNS])
    pq.write_table(pa.Table.from_pylist(relation_rows, schema=relation_schema),
                   parquet / "relations" / "part-00000.parquet")
    for folder in parquet.iterdir():
        for marker in (*folder.glob(".*.crc"), *folder.glob("_SUCCESS")):
            marker.unlink()

    csv_root = out / "csv"
    (out / "headers").mkdir(parents=True, exist_ok=True)

    schemas = {"entities": entities.drop("file_index").schema, "stubs": entities.drop("file_index").schema,
               "facts": facts.drop("file_index").schema}

    def write_csv(source: str, folder: str, columns, where=None) -> list[str]:
        df = spark.read.schema(schemas[source]).parquet(str(parquet / source))
        if where is not None:
            df = df.where(where)
        df.select(*[_csv_column(c) for c in columns]).write.options(**_CSV_OPTIONS).csv(str(csv_root / folder))
        for marker in (*(csv_root / folder).glob(".*.crc"), *(csv_root / folder).glob("_SUCCESS")):
            marker.unlink()
        return [str(f.relative_to(out)) for f in sorted((csv_root / folder).glob("part-*.csv"))]

    start_end = {"has_fact": (layout.Column("subject_id", "string"), layout.Column("id", "string")),
                 "object": (layout.Column("id", "string"), layout.Column("object_id", "string"))}
    entity_parts = write_csv("entities", "entities", layout.ENTITY_COLUMNS)
    entity_parts += write_csv("stubs", "stubs", layout.ENTITY_COLUMNS)
    fact_parts = write_csv("facts", "facts", layout.FACT_COLUMNS)
    has_fact_parts = write_csv("facts", "has_fact", start_end["has_fact"])
    object_parts = write_csv("facts", "object", start_end["object"], F.col("object_id").isNotNull())
    (csv_root / "relations").mkdir(parents=True, exist_ok=True)
    n_rel = layout.write_small_csv(csv_root / "relations" / "relations.csv", layout.RELATION_COLUMNS,
                                   relation_rows)
    headers = {
        "entities": layout.header_line(layout.ENTITY_COLUMNS, "Entity"),
        "facts": layout.header_line(layout.FACT_COLUMNS, "Fact"),
        "has_fact": ":START_ID(Entity),:END_ID(Fact)\n",
        "object": ":START_ID(Fact),:END_ID(Entity)\n",
        "relations": layout.header_line(layout.RELATION_COLUMNS, "Relation"),
    }
    for name, text in headers.items():
        (out / "headers" / f"{name}.csv").write_text(text, encoding="utf-8")

    counts = {
        "entities": _parquet_rows(parquet / "entities"),
        "stubs": _parquet_rows(parquet / "stubs"),
        "facts": _parquet_rows(parquet / "facts"),
        "object": _parquet_rows(parquet / "facts", "object_id"),
        "relations": n_rel,
    }
    counts["has_fact"] = counts["facts"]
    groups = [
        layout.FileGroup("nodes", "", "headers/entities.csv", tuple(entity_parts),
                         counts["entities"] + counts["stubs"]),
        layout.FileGroup("nodes", "Fact", "headers/facts.csv", tuple(fact_parts), counts["facts"]),
        layout.FileGroup("nodes", "Relation", "headers/relations.csv", ("csv/relations/relations.csv",), n_rel),
        layout.FileGroup("relationships", "HAS_FACT", "headers/has_fact.csv", tuple(has_fact_parts),
                         counts["has_fact"]),
        layout.FileGroup("relationships", "OBJECT", "headers/object.csv", tuple(object_parts), counts["object"]),
    ]
    layout.write_manifest(out, groups=groups, multiline=multiline, counts=counts,
                          report=report.as_dict(), source={"loader": "wikidata", "files": sources})
    return counts


def _stub_column(column: layout.Column):
    """A stub as store/upsert_facts creates one: id, name, no aliases, stub = true."""
    from pyspark.sql import functions as F

    if column.name in ("id", "name"):
        return F.col(column.name)
    if column.name == "labels":
        return F.array(F.lit("Entity")).alias("labels")
    if column.name == "stub":
        return F.lit(True).alias("stub")
    return F.lit(None).cast(_spark_type(column.kind)).alias(column.name)


def _spark_type(kind: str) -> str:
    base = {"string": "string", "double": "double", "long": "bigint", "boolean": "boolean"}
    return f"array<{base[kind[:-2]]}>" if kind.endswith("[]") else base[kind]


def _csv_column(column: layout.Column):
    from pyspark.sql import functions as F

    if column.kind == "string[]":
        return F.array_join(F.col(column.name), layout.ARRAY_DELIMITER).alias(column.name)
    if column.kind == "long[]":
        return F.array_join(F.col(column.name).cast("array<string>"), layout.ARRAY_DELIMITER).alias(column.name)
    return F.col(column.name)


def _spark_schema(arrow_schema):
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow_schema)
