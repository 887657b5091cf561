"""``knowforge generate METHOD`` and ``knowforge export METHOD``, generic over the method registry.

Each method's sub-command is made from its ``Method``: the options from its parameter model,
``--backend/--model/--base-url`` when its generation may ask an LLM, ``--drop`` and
``--import`` when it can. Nothing here names a method.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from knowforge.cli.common import console, handle_errors, open_graph, progress_bar
from knowforge.cli.params import build_params, options_for, values_from

# Export sub-commands that are not methods (knowforge export run RUN_ID ...): name -> "module:attr".
EXTRA_EXPORTS: dict[str, str] = {"run": "knowforge.cli.score_cmd:export_run_cmd"}


def _methods():
    from knowforge import methods

    return methods.available()


def _examples(method, kind: str) -> str:
    lines = method.examples.get(kind, ())
    return ("\n\n\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)) if lines else ""


def _method_help(method, verb: str) -> str:
    tasks = ", ".join(t.name.split("/", 1)[1] for t in method.tasks)
    return (f"{verb} {method.title}: {method.description}\n\n"
            f"Tasks: {tasks}. Details: {method.docs or 'README.md'}." + _examples(method, "generate"))


def backend_params() -> list[click.Option]:
    """--backend/--model/--base-url of the LLM a generation step may use (cached like eval's)."""
    return [
        click.Option(["--backend", "--llm-backend", "llm_backend"], type=click.Choice(["hf", "openai", "vllm"]),
                     default=None, help="Backend of the LLM used while generating (default: hf, or openai "
                                        "with --base-url)."),
        click.Option(["--model", "--llm-model", "llm_model"], default=None,
                     help="Model id or local directory of that LLM."),
        click.Option(["--base-url", "--llm-base-url", "llm_base_url"], default=None,
                     help="openai: server URL, e.g. http://127.0.0.1:8000/v1."),
    ]


def make_llm(backend: str | None, model: str | None, base_url: str | None, seed: int, silent: bool):
    if not (backend or model or base_url):
        return None
    from knowforge.errors import ConfigError
    from knowforge.models.backends import make_backend
    from knowforge.models.config import BackendConfig

    if not model:
        raise ConfigError("--backend/--base-url need --model (a model id or local directory)")
    return make_backend(BackendConfig(backend=backend or ("openai" if base_url else "hf"), model=model,
                                      base_url=base_url, seed=seed, silent=silent))


def _print_summary(summary) -> None:
    console.print(summary.line())
    for title, counts in summary.breakdown.items():
        console.print(f"  {title}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for note in summary.notes:
        console.print(f"  [yellow]{note}[/yellow]")


def make_generate_command(method) -> click.Command:
    def callback(silent, home, llm_backend=None, llm_model=None, llm_base_url=None, drop_name=None,
                 import_paths=(), **kwargs):
        from knowforge import workflow

        with contextlib.closing(open_graph(home)) as store:
            if drop_name:
                result = workflow.drop(method, store, drop_name)
                console.print(f"dropped {method.benchmark_id(drop_name)}: "
                              + ", ".join(f"{v} {k}" for k, v in result.items()))
                return
            params = build_params(method.params, values_from(method.params, kwargs))
            llm = make_llm(llm_backend, llm_model, llm_base_url, params.seed, silent)
            with progress_bar(method.name, None, silent=silent, unit="rows") as advance:
                if import_paths:
                    summary = workflow.import_benchmark(method, store, [Path(p) for p in import_paths], params,
                                                        progress=advance)
                else:
                    summary = workflow.generate(method, store, params, backend=llm, progress=advance)
        _print_summary(summary)
        click.echo(summary.benchmark)

    params = options_for(method.params)
    if method.backend != "none":
        params = backend_params() + params
    if method.drop is not None:
        params.append(click.Option(["--drop", "drop_name"], default=None, metavar="NAME",
                                   help="Delete benchmark NAME (and what it added to the graph) instead."))
    if method.importer is not None:
        params.append(click.Option(["--import", "import_paths"], multiple=True, type=click.Path(exists=True),
                                   help="Import released benchmark files/folders instead of generating."))
    params += [click.Option(["--silent"], is_flag=True, help="No progress bars."),
               click.Option(["--home"], default=None, envvar="KNOWFORGE_NEO4J_HOME", show_envvar=True,
                            type=click.Path(file_okay=False),
                            help="Data directory of the managed Neo4j (default: the user data dir).")]
    return click.Command(method.name, params=params, callback=handle_errors(callback),
                         help=_method_help(method, "Generate"), short_help=f"Generate {method.title}.")


def make_export_command(method) -> click.Command:
    from knowforge.workflow import export_formats

    formats = export_formats(method)

    def callback(name, fmt, out, home):
        from knowforge import workflow

        name = name.split(":", 1)[1] if name.startswith(f"{method.name}:") else name
        with contextlib.closing(open_graph(home)) as store:
            result = workflow.export(method, store, name, fmt, Path(out))
        console.print(f"{result.items} items of {method.benchmark_id(name)} as {fmt}; manifest {result.manifest}")
        for path in result.files:
            click.echo(str(path))

    lines = "\n".join(f"  {f}: {spec.description}" for f, spec in formats.items())
    params = [
        click.Option(["--name", "name"], required=True,
                     help=f"The benchmark: NAME or {method.name}:NAME."),
        click.Option(["--format", "fmt"], type=click.Choice(list(formats)), default=next(iter(formats)),
                     show_default=True, help="Export format (see above)."),
        click.Option(["--out"], required=True, type=click.Path(),
                     help="Output folder (or a file for single-file formats: .jsonl, .json)."),
        click.Option(["--home"], default=None, envvar="KNOWFORGE_NEO4J_HOME", type=click.Path(file_okay=False),
                     help="Data directory of the managed Neo4j."),
    ]
    help_text = (f"Export a {method.title} benchmark from the graph, with a manifest (version, git "
                 f"revision, source-graph hash, parameters, seed, file hashes).\n\n\b\nFormats:\n{lines}"
                 + _examples(method, "export"))
    return click.Command(method.name, params=params, callback=handle_errors(callback), help=help_text,
                         short_help=f"Export {method.title}.")


class MethodGroup(click.Group):
    maker = staticmethod(make_generate_command)
    extra: dict[str, str] = {}

    def list_commands(self, ctx):
        return sorted([*_methods(), *self.extra])

    def get_command(self, ctx, name):
        if name in self.extra:
            import importlib

            module, attr = self.extra[name].split(":")
            return getattr(importlib.import_module(module), attr)
        method = _methods().get(name)
        return self.maker(method) if method is not None else None


class GenerateGroup(MethodGroup):
    maker = staticmethod(make_generate_command)


class ExportGroup(MethodGroup):
    maker = staticmethod(make_export_command)
    extra = EXTRA_EXPORTS


@click.group("generate", cls=GenerateGroup)
def generate_group() -> None:
    """Generate a benchmark in the graph with one of the installed methods (knowforge methods).

    \b
    Examples:
      knowforge generate knowgen --n 100 --seed 1 --name b1
      knowforge generate chrono --domain general --from 2010 --to 2023 --seed 0
      knowforge generate events --types win-election,transfer-player --n 20 --seed 0
      knowforge generate knowgen --drop b1
    """


@click.group("export", cls=ExportGroup)
def export_group() -> None:
    """Export a benchmark: the method's own format, our JSONL, a Hugging Face dataset, or
    lm-evaluation-harness tasks.

    \b
    Examples:
      knowforge export knowgen --name b1 --format alcuna --out exports/b1
      knowforge export chrono --name general --format hf --out exports/general-hf
      knowforge export events --name e0 --format lm-eval --out exports/e0-lmeval
    """


__all__ = ["EXTRA_EXPORTS", "export_group", "generate_group"]
