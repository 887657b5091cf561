"""The ``knowforge`` command. Sub-command groups are imported lazily so ``--help`` is fast and a
heavy dependency of one group (torch, vllm) never slows down another."""

from __future__ import annotations

import importlib
import logging
import os

import click

# torch's OpenMP threads spin while they wait for work. On a machine shared with other jobs
# (2 cores, several processes) spinning threads starve each other: a training step of the
# control model took 10x longer than with passive waiting. Set before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from knowforge import __version__

# command name -> "module:attribute"; one module per command group.
COMMANDS = {
    "neo4j": "knowforge.cli.neo4j_cmd:neo4j_group",
    "init": "knowforge.cli.graph_cmd:init_cmd",
    "stats": "knowforge.cli.graph_cmd:stats_cmd",
    "query": "knowforge.cli.graph_cmd:query_cmd",
    "load": "knowforge.cli.load_cmd:load_cmd",
    "methods": "knowforge.cli.methods_cmd:methods_cmd",
    "generate": "knowforge.cli.generate_cmd:generate_group",
    "export": "knowforge.cli.generate_cmd:export_group",
    "eval": "knowforge.cli.eval_cmd:eval_cmd",
    "results": "knowforge.cli.eval_cmd:results_cmd",
    "report": "knowforge.cli.eval_cmd:report_cmd",
    "score": "knowforge.cli.score_cmd:score_group",
    "ripple": "knowforge.cli.ripple_cmd:ripple_cmd",
    "tiny-model": "knowforge.cli.eval_cmd:tiny_model_cmd",
    "train-control": "knowforge.cli.control_cmd:train_control_cmd",
    "view": "knowforge.cli.view_cmd:view_cmd",
}


TracebackFormatter = logging.Formatter


class OneLineFormatter(logging.Formatter):
    """A log record without its traceback: one line, as the command's own error is (-v shows
    tracebacks)."""

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info or record.exc_text:
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None})
        return super().format(record)


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        names = []
        for name in COMMANDS:
            try:
                self.get_command(ctx, name)
            except (ImportError, AttributeError):
                continue  # a command group whose module is absent is not offered
            names.append(name)
        return sorted(names)

    def get_command(self, ctx, name):
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"],
                                              "max_content_width": 100})
@click.version_option(__version__, prog_name="knowforge")
@click.option("-v", "--verbose", count=True, help="More logging (-v info, -vv debug).")
def cli(verbose: int) -> None:
    """knowforge: benchmarks of new, changing and long-tail knowledge, built from one Neo4j graph.

    \b
    Quick start:
      knowforge neo4j start        # start the managed Neo4j (127.0.0.1 only)
      knowforge init               # apply the schema
      knowforge load samples       # load the bundled sample data
      knowforge stats              # what is in the graph

    Graph commands use NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE when set,
    otherwise they start (or reuse) the managed server.
    """
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handler = logging.StreamHandler()
    handler.setFormatter((TracebackFormatter if verbose else OneLineFormatter)("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    # The driver's own warnings and errors ("Transaction failed and will be retried in 2.2s",
    # "Failed to read from defunct connection") come before the command's one-line error says
    # the same, with the next step: -v shows them.
    logging.getLogger("neo4j").setLevel(logging.WARNING if verbose else logging.CRITICAL)
    # The server's query notifications (e.g. "property key does not exist" before a first
    # batch is written) are for developers: shown with -vv only.
    logging.getLogger("neo4j.notifications").setLevel(
        logging.WARNING if verbose >= 2 else logging.ERROR)
