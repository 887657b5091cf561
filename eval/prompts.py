"""Render a ``BenchmarkItem`` into a ``GenerationRequest`` under a prompting setting.

Settings (ALCUNA's four): ``vanilla`` (the question only), ``zero-shot`` (an instruction for
the item's form), ``few-shot`` (instruction + the item's own ``few_shot`` examples) and
``chain-of-thought`` (think step by step, final line "Answer: ..."). A request is a chat
(``messages``) when ``options.chat`` is true, otherwise a plain prompt.

The wording is versioned by ``TEMPLATE_VERSION``; the version is stored on every Run, and any
change of wording must bump it (the response cache keys on the exact prompt anyway).
"""

from __future__ import annotations

from collections.abc import Sequence

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


def _system(form: str, setting: str) -> str | None:
    """The system turn of a setting (None for vanilla, which has none)."""
    if setting == "vanilla":
        return None
    return f"{_INSTRUCTIONS[form]} {_COT}" if setting == "chain-of-thought" else _INSTRUCTIONS[form]


# the settings without exemplars, each with the line that ends its plain prompt
_PLAIN_TAILS = {"vanilla": "Answer:", "zero-shot": "Answer:", "chain-of-thought": "Answer: Let's think step by step."}


def render_messages(item: BenchmarkItem, setting: str) -> list[tuple[str, str]]:
    """The prompt as chat turns ((role, content), ...)."""
    if setting not in SETTINGS:
        raise ConfigError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
    messages: list[tuple[str, str]] = []
    system = _system(item.form, setting)
    if system is not None:
        messages.append(("system", system))
    if setting == "few-shot":
        for question, answer in _shots(item):
            messages.append(("user", question))
            messages.append(("assistant", answer))
    messages.append(("user", format_question(item)))
    return messages


def render_prompt(item: BenchmarkItem, setting: str) -> str:
    """The same content as one plain-text prompt ending in "Answer:"."""
    if setting in _PLAIN_TAILS:
        # no exemplars: the system block (none when vanilla), then the question and the tail,
        # as the blocks below join them, without building the chat turns first
        system = _system(item.form, setting)
        question = f"{format_question(item)}\n{_PLAIN_TAILS[setting]}"
        return question if system is None else f"{system}\n\n{question}"
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


def render_requests(items: Sequence[BenchmarkItem], setting: str, options: EvalOptions) -> list[GenerationRequest]:
    """``render_request`` of each item. Plain prompts: the first request is built and checked as
    usual, every other one is a copy of it with its own prompt, all other fields being the
    run's, already checked (the dataclass's __init__ and checks cost 2 us a request, more than
    its prompt: 100,000 items, 0.2 s)."""
    items = list(items)
    if options.chat or not items:
        return [render_request(item, setting, options) for item in items]
    first = render_request(items[0], setting, options)
    fields = vars(first)
    out = [first]
    for item in items[1:]:
        request = object.__new__(GenerationRequest)
        vars(request).update(fields, prompt=render_prompt(item, setting))
        out.append(request)
    return out


