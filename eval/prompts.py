"""Render a ``BenchmarkItem`` into a ``GenerationRequest`` under a prompting setting.

Settings (ALCUNA's four): ``vanilla`` (the question only), ``zero-shot`` (an instruction for
the item's form), ``few-shot`` (instruction + the item's own ``few_shot`` examples) and
``chain-of-thought`` (think step by step, final line "Answer: ..."). A request is a chat
(``messages``) when ``options.chat`` is true, otherwise a plain prompt.

The wording is versioned by ``TEMPLATE_VERSION``; the version is stored on every Run, and any
change of wording must bump it (the response cache keys on the exact prompt anyway).
"""

from __future__ import annotations

from knowforge.errors import ConfigError
from knowforge.models.types import BenchmarkItem, GenerationRequest
from knowforge.eval.types import EvalOptions

TEMPLATE_VERSION = "1"
SETTINGS = ("vanilla", "zero-shot", "few-shot", "chain-of-thought")
COT_MIN_TOKENS = 256

_INSTRUCTIONS = {
    "generation": "Answer the question with a short phrase. If the answer is not known, answer \"unknown\".",
    "fill-in-blank": "Fill in the blank with a short phrase. If the answer is not known, answer \"unknown\".",
    "boolean": "Answer the question with yes or no.",
    "true-false": "Is the statement true or false? Answer with true or false.",
    "multi-choice": "Choose the correct option. Answer with its letter only.",
}
_COT = ("Think step by step, then give the final answer on the last line in the form "
        "\"Answer: <answer>\".")
LETTERS = "ABCDEFGHIJ"


def format_question(item: BenchmarkItem) -> str:
    """Context, question and lettered options of one item."""
    parts = []
    if item.context:
        parts.append(f"Context: {item.context}")
    parts.append(f"Question: {item.question}")
    if item.choices:
        parts.append("\n".join(f"({LETTERS[i]}) {c}" for i, c in enumerate(item.choices)))
    return "\n".join(parts)


def _shots(item: BenchmarkItem) -> list[tuple[str, str]]:
    shots = []
    for i, shot in enumerate(item.few_shot):
        if "question" not in shot or "answer" not in shot:
            raise ConfigError(f"item {item.id}: few_shot[{i}] needs 'question' and 'answer'")
        shots.append((f"Question: {shot['question']}", str(shot["answer"])))
    return shots


def render_messages(item: BenchmarkItem, setting: str) -> list[tuple[str, str]]:
    """The prompt as chat turns ((role, content), ...)."""
    if setting not in SETTINGS:
        raise ConfigError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
    messages: list[tuple[str, str]] = []
    if setting != "vanilla":
        system = _INSTRUCTIONS[item.form]
        if setting == "chain-of-thought":
            system += " " + _COT
        messages.append(("system", system))
    if setting == "few-shot":
        for question, answer in _shots(item):
            messages.append(("user", question))
            messages.append(("assistant", answer))
    messages.append(("user", format_question(item)))
    return messages


def render_prompt(item: BenchmarkItem, setting: str) -> str:
    """The same content as one plain-text prompt ending in "Answer:"."""
    blocks = []
    for role, content in render_messages(item, setting):
        if role == "system":
            blocks.append(content)
        elif role == "user":
            blocks.append(content)
        else:  # a few-shot answer closes the example before it
            blocks[-1] = f"{blocks[-1]}\nAnswer: {content}"
    tail = "Answer: Let's think step by step." if setting == "chain-of-thought" else "Answer:"
    blocks[-1] = f"{blocks[-1]}\n{tail}"
    return "\n\n".join(blocks)


def render_request(item: BenchmarkItem, setting: str, options: EvalOptions) -> GenerationRequest:
    """One request for one item: ``options.n`` samples with the run's decoding parameters."""
    chat = options.chat
    cot = setting == "chain-of-thought"
    max_tokens = max(options.max_tokens, COT_MIN_TOKENS) if cot else options.max_tokens
    # a plain few-shot prompt would otherwise run on into the next "Question:"
    stop = () if (chat or cot) else ("\nQuestion:",)
    common = dict(n=options.n, temperature=options.temperature, top_p=options.top_p,
                  seed=options.seed, max_tokens=max_tokens, stop=stop)
    if chat:
        return GenerationRequest(messages=tuple(render_messages(item, setting)), **common)
    return GenerationRequest(prompt=render_prompt(item, setting), **common)


