"""The examples the README and docs/*.md show, extracted mechanically for
tests/test_doc_examples.py, which runs them:

* commands: every ``knowforge ...`` line of a ```bash block (continuation lines joined, ``&&``
  chains split, trailing ``# comments`` dropped);
* Cypher: every statement of a ```cypher block, with the parameters its ``:param`` lines set;
* recipes: every file of ``cypher/queries/``.

An example's ``key`` is its text with whitespace collapsed (a command without its comment): the
skip list of the test names examples by it, and one text shown in two places is one example.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w*)\s*\n(.*?)^```", re.S | re.M)
COMMENT = re.compile(r"\s+#\s.*$")
PARAM = re.compile(r"^:param\s+(\w+)\s*=>\s*(.+?);?\s*$")
# a command, perhaps after environment assignments: KNOWFORGE_E5_MODEL=DIR knowforge eval ...
COMMAND = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S+\s+)*knowforge\s")


@dataclass(frozen=True)
class Example:
    kind: str                       # "command" | "cypher" | "recipe"
    where: str                      # README.md:334, docs/events.md:186, cypher/queries/x.cypher
    key: str                        # the text, whitespace collapsed
    params: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def argv(self) -> list[str]:
        """A command's arguments after ``knowforge``, as bash would pass them (``\\$`` is ``$``)."""
        tokens = [t.replace("\\$", "$") for t in shlex.split(self.key)]
        return tokens[tokens.index("knowforge") + 1:]

    @property
    def env(self) -> dict[str, str]:
        """The environment a command sets before ``knowforge``."""
        tokens = shlex.split(self.key)
        return dict(t.split("=", 1) for t in tokens[:tokens.index("knowforge")])


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _blocks(path: Path, language: str):
    text = path.read_text(encoding="utf-8")
    for match in FENCE.finditer(text):
        if match.group(1) == language:
            yield text[:match.start(2)].count("\n") + 1, match.group(2)


def _logical_lines(first_line: int, body: str):
    """(line number, text) with backslash continuations joined."""
    pending, start = "", first_line
    for offset, line in enumerate(body.splitlines()):
        if not pending:
            start = first_line + offset
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def command_examples() -> list[Example]:
    out: dict[str, Example] = {}
    for path in documents():
        where = path.relative_to(ROOT)
        for first, body in _blocks(path, "bash"):
            for lineno, line in _logical_lines(first, body):
                for part in line.split("&&"):
                    text = COMMENT.sub("", part.strip().removeprefix("$ ").strip())
                    if not COMMAND.match(text):
                        continue
                    key = " ".join(text.split())
                    out.setdefault(key, Example("command", f"{where}:{lineno}", key))
    return list(out.values())


def _cypher_value(text: str):
    """A Browser ``:param`` value: a Cypher literal ('text', null, 50, ['a', 'b']) as Python."""
    converted = re.sub(r"'((?:[^'\\]|\\.)*)'", lambda m: json.dumps(m.group(1)), text.strip())
    return json.loads(converted)


def cypher_examples() -> list[Example]:
    out: dict[str, Example] = {}
    for path in documents():
        where = path.relative_to(ROOT)
        for first, body in _blocks(path, "cypher"):
            params: dict = {}
            statement: list[str] = []
            start = first

            def flush():
                text = "\n".join(statement).strip()
                if text:
                    key = " ".join(text.split())
                    out.setdefault(key, Example("cypher", f"{where}:{start}", key, dict(params)))
                statement.clear()

            for offset, line in enumerate(body.splitlines()):
                stripped = line.strip()
                if stripped.startswith(":param"):
                    match = PARAM.match(stripped)
                    assert match, f"{where}:{first + offset}: unreadable {stripped!r}"
                    params[match.group(1)] = _cypher_value(match.group(2))
                    continue
                if stripped.startswith("//") or (not stripped and not statement):
                    continue
                if not statement:
                    start = first + offset
                statement.append(line)
                if stripped.endswith(";"):
                    statement[-1] = line.rstrip().removesuffix(";")
                    flush()
            flush()
    return list(out.values())


def recipe_examples() -> list[Example]:
    return [Example("recipe", str(p.relative_to(ROOT)), p.stem)
            for p in sorted((ROOT / "cypher" / "queries").glob("*.cypher"))]


def all_examples() -> list[Example]:
    return command_examples() + cypher_examples() + recipe_examples()
