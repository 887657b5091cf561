"""LINT's entailment probe: the 13 templates, word for word, with their labels.

From INK-USC/LINK ``link/probing.py`` (``diverse_prompt_format`` without chain of thought) and
the paper's Appendix G.1. ``P`` is the statement's premise (the predicates that mention the
generic variable), ``C`` its conclusion ending in a period, ``¬C`` and ``C?`` the conclusion's
minimal-edit negation and question. Every prompt starts with LINK's instruction
``For the following question, please answer in a normal life scenario with no special
consideration:`` and a newline; the answer is the first word of the reply.

Our numbering follows the official code's order (six positive templates, then seven negative
ones). Template 9 asks ``C?``: its gold is "No" for a negative conclusion ("Can PersonX eat
pesto?" when PersonX cannot) and "Yes" for a positive one ("Does PersonX pay in euros?"); the
official code moves the question into the positive list for those rules, here it keeps its
number and changes its label. A statement is *known* when all 13 are answered right.
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "For the following question, please answer in a normal life scenario with no special consideration:\n"


@dataclass(frozen=True)
class ProbeTemplate:
    number: int
    text: str                 # {P}, {C}, {C_} (no final period), {N}, {N_}, {Q}
    label: str                # for a negative conclusion
    uses: str                 # "C", "N" (negation) or "Q" (question)

    def gold(self, positive: bool) -> str:
        if self.number == 9 and positive:
            return "Yes"
        return self.label


TEMPLATES: tuple[ProbeTemplate, ...] = (
    ProbeTemplate(1, "Is it true that if {P}, {C_}? Answer yes or no:", "Yes", "C"),
    ProbeTemplate(2, "Yes or no: if {P}, {C}", "Yes", "C"),
    ProbeTemplate(3, "True or false: if {P}, {C}", "True", "C"),
    ProbeTemplate(4, "Right or Wrong: if {P}, {C}", "Right", "C"),
    ProbeTemplate(5, "Premise: {P}. Conclusion: {C} Does premise entail conclusion? Answer yes or no:", "Yes", "C"),
    ProbeTemplate(6, "Premise: {P}. Conclusion: {N} Does premise contradict the conclusion? Answer yes or no:",
                  "Yes", "N"),
    ProbeTemplate(7, "Is it true that if {P}, {N_}? Answer yes or no:", "No", "N"),
    ProbeTemplate(8, "Yes or no: if {P}, {N}", "No", "N"),
    ProbeTemplate(9, "Answer the question with yes or no: if {P}, {Q}", "No", "Q"),
    ProbeTemplate(10, "True or false: if {P}, {N}", "False", "N"),
    ProbeTemplate(11, "Right or Wrong: if {P}, {N}", "Wrong", "N"),
    ProbeTemplate(12, "Premise: {P}. Conclusion: {N} Does premise entail conclusion? Answer yes or no:", "No", "N"),
    ProbeTemplate(13, "Premise: {P}. Conclusion: {C} Does premise contradict the conclusion? Answer yes or no:",
                  "No", "C"),
)

NEGATE_PROMPT = "Negate the statement with minimal edits: {C}"
QUESTION_PROMPT = "Convert the statement to a question with minimal edits: {C}"


def complete_sentence(text: str) -> str:
    """LINK's ``complete_sentence``: add a final period when there is none."""
    text = text.strip()
    return text if text.endswith(".") else text + "."


def render(template: ProbeTemplate, premise: str, conclusion: str, negation: str | None,
           question: str | None) -> str:
    """The full prompt of one template (instruction included)."""
    c = complete_sentence(conclusion)
    n = complete_sentence(negation) if negation is not None else None
    if template.uses == "N" and n is None:
        raise ValueError(f"template {template.number} needs the negated conclusion")
    if template.uses == "Q" and question is None:
        raise ValueError(f"template {template.number} needs the conclusion as a question")
    text = template.text.format(P=premise, C=c, C_=c[:-1], N=n or "", N_=(n or "")[:-1], Q=question or "")
    return PREFIX + text.replace("if if ", "if ")


def first_line_answer(text: str | None) -> str:
    """A rewrite's answer: its first non-empty line, stripped of quotes."""
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip().strip('"').strip()
    return ""


__all__ = ["NEGATE_PROMPT", "PREFIX", "ProbeTemplate", "QUESTION_PROMPT", "TEMPLATES", "complete_sentence",
           "first_line_answer", "render"]
