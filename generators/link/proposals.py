"""What the knowledge model is asked, and how its answer is read (LINK's ``KnowledgeModel``).

The prompt instantiates the predicates that join the searched variable to the values already
chosen (``construct_prompt`` without ``--nl_prompt``, as the official search script runs)::

    Give me 50 diverse values of B to instantiate the rule 'is_ingredient_in(butter, B)' in the
    format '1. value.', where B can be a Dish.

Later calls for the same beam are told which values were already accepted ("Do not generate
these values: ..."); a factual variable asks for "the correct value". The reply is read line
by line as in ``post_process``: ``N. value.`` lines only, at most 64 characters, text in
parentheses dropped, ``Kind: value`` / ``Kind - value`` reduced to the value, a value that is
the datatype itself or mentions the variable skipped. (The official code also sets a logit
bias of -100 on tokens of rejected values; our backends have no logit bias, so rejected values
can come back and are simply rejected again.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .rules import Predicate


def instantiate(pred: Predicate, values: Mapping[str, str]) -> str:
    """``is_ingredient_in(butter, B)``: bound variables replaced by their values."""
    return f"{pred.name}({', '.join(values.get(a, a) for a in pred.args)})"


def proposal_prompt(var: str, datatype: str, predicates: Sequence[Predicate], values: Mapping[str, str],
                    n: int, *, factual: bool = False, exclude: Sequence[str] = ()) -> str:
    rule = " & ".join(instantiate(p, values) for p in predicates)
    if factual:
        prompt = (f"Give me the correct value of {var} to instantiate the rule '{rule}' in the format "
                  f"'1. value.', where {var} is a {datatype}.")
    else:
        prompt = (f"Give me {n} diverse values of {var} to instantiate the rule '{rule}' in the format "
                  f"'1. value.', where {var} can be a {datatype}.")
    if exclude:
        prompt += f" Do not generate these values: {', '.join(exclude)}."
    return prompt


def parse_values(output: str, var: str | None = None, datatype: str | None = None) -> list[str]:
    """The values of a ``1. value.`` list, in order, without duplicates."""
    out: list[str] = []
    for line in (output or "").split("\n"):
        line = line.strip()
        if not line or "." not in line or line[-1] != ".":
            continue
        value = line[line.index(".") + 1:-1].strip("'. ").strip('" ')
        if "/" in value or value.count(",") > 1 or len(value) > 64:
            continue
        if "," in value:
            value = value[:value.index(",")].strip()
        if "(" in value and ")" in value and value.index("(") < value.index(")"):
            value = (value[:value.index("(")] + value[value.index(")") + 1:]).strip()
        if ":" in value:
            value = value[value.index(":") + 1:].strip()
        if " - " in value:
            value = value[value.index(" - ") + 3:].strip()
        value = " ".join(value.split("_")).strip()
        if ". " in value:
            continue
        if (var and var in value.split()) or (datatype and value == datatype):
            continue
        if value and value not in out:
            out.append(value)
    return out


__all__ = ["instantiate", "parse_values", "proposal_prompt"]
