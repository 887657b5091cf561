"""``knowforge generate METHOD`` and the registry of per-method command modules."""

from __future__ import annotations

import importlib

import click

# method -> "module:attribute" of its click command; one module per method.
GENERATORS = {
    "knowgen": "knowforge.cli.knowgen_cmd:generate_knowgen",
    "chrono": "knowforge.cli.chrono_cmd:generate_chrono",
    "events": "knowforge.cli.events_cmd:generate_events",
}
EXPORTERS = {
    "knowgen": "knowforge.cli.knowgen_cmd:export_knowgen",
    "chrono": "knowforge.cli.chrono_cmd:export_chrono",
    "events": "knowforge.cli.events_cmd:export_events",
    "run": "knowforge.cli.score_cmd:export_run_cmd",   # a recorded run in an official layout
}
# `knowforge eval --benchmark PREFIX:SPEC` hands PREFIX's benchmarks to these functions:
# fn(spec: str, options: knowforge.eval.types.EvalOptions, store) -> pathlib.Path (report dir)
EVALUATORS = {
    "knowgen": "knowforge.cli.knowgen_cmd:evaluate_knowgen",
    "chrono": "knowforge.cli.chrono_cmd:evaluate_chrono",
    "events": "knowforge.cli.events_cmd:evaluate_events",
}


def resolve(target: str):
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)


class RegistryGroup(click.Group):
    registry: dict[str, str] = {}

    def list_commands(self, ctx):
        names = []
        for name, target in self.registry.items():
            try:
                resolve(target)
            except (ImportError, AttributeError):
                continue
            names.append(name)
        return sorted(names)

    def get_command(self, ctx, name):
        target = self.registry.get(name)
        return resolve(target) if target else None


class GenerateGroup(RegistryGroup):
    registry = GENERATORS


class ExportGroup(RegistryGroup):
    registry = EXPORTERS


@click.group("generate", cls=GenerateGroup)
def generate_group() -> None:
    """Generate benchmark knowledge in the graph (artificial entities, time-stamped items, events).

    \b
    Examples:
      knowforge generate knowgen --class Camelidae --n 100 --seed 1
      knowforge generate chrono --domain general --from 2010 --to 2023 --seed 0
      knowforge generate events --types win-election,transfer-player --n 20 --seed 0
    """


@click.group("export", cls=ExportGroup)
def export_group() -> None:
    """Export a generated benchmark in its original format, our JSONL schema, or HF datasets.

    \b
    Example:
      knowforge export knowgen --batch B --format alcuna --out exports/knowgen
    """
