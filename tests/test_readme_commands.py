"""The command tables of README.md and docs/ name only options the commands have (the README's
table said `export METHOD --benchmark NAME` long after the option became `--name`). Pure click
introspection: no graph, no model."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from knowforge.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\|\s*`(knowforge [^`]+)`")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b")
PLACEHOLDER = {"METHOD": "knowgen"}       # a method stands for any: every method has the generic options


def table_commands() -> list[tuple[str, str]]:
    rows = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = ROW.match(line)
            if match:
                rows.append((f"{path.relative_to(ROOT)}:{n}", match.group(1).replace("\\|", "|")))
    return rows


def resolve(words: list[str]) -> tuple[click.Command, list[str]]:
    """The deepest command the leading words name, and the words after it."""
    command, ctx = cli, click.Context(cli)
    rest = list(words)
    while rest and isinstance(command, click.Group):
        name = PLACEHOLDER.get(rest[0], rest[0])
        sub = command.get_command(ctx, name)
        if sub is None:
            break
        command, ctx, rest = sub, click.Context(sub, parent=ctx), rest[1:]
    return command, rest


def test_the_tables_list_commands():
    assert len(table_commands()) > 20


@pytest.mark.parametrize("where,text", table_commands(), ids=[w for w, _ in table_commands()])
def test_a_tables_options_exist(where, text):
    words = re.split(r"[\s|]+", text)[1:]
    command, rest = resolve(words)
    assert command is not cli, f"{where}: {text!r} names no knowforge command"
    known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
    # 'status [--json]` / `logs [-n N]': options after a second command word belong to that command
    named = [w for w in rest if OPTION.fullmatch(w.strip("[]()|,"))]
    unknown = [w.strip("[]()|,") for w in named if w.strip("[]()|,") not in known]
    assert not unknown, f"{where}: `knowforge {command.name}` has no {unknown} ({text!r})"
