"""The prompts NewTerm generation sends, in knowforge's own wording (the official pipeline's
structure: which step asks what, with which inputs; METHODS.md §4 and the paper's Tables 3-13).

``PROMPT_VERSION`` is stored on the benchmark's generation run; change it with any wording.
The evaluation phrasings are not here: they are part of the benchmark's definition and live,
word for word, in ``knowforge.eval.newterm.solver``.
"""

from __future__ import annotations

from collections.abc import Sequence

from knowforge.models.types import GenerationRequest

PROMPT_VERSION = "1"
MARKERS = {"effect": "As an effect,", "cause": "This happened because"}
CONNECTIVES = {"effect": "so", "cause": "because"}
KINDS = ("synonym", "antonym", "partial", "spelling")
LIST_SYSTEM = ("Answer with three terms, one per line, without numbering or explanation. If no term fully "
               "fits, give terms that fit partly; always answer.")


def request(system: str, user: str, *, chat: bool, temperature: float, max_tokens: int, seed: int,
            n: int = 1) -> GenerationRequest:
    """A system + user turn as chat messages, or as one plain prompt (system, blank line, user)."""
    if chat:
        return GenerationRequest(messages=(("system", system), ("user", user)), n=n, temperature=temperature,
                                 seed=seed, max_tokens=max_tokens)
    return GenerationRequest(prompt=f"{system}\n\n{user}", n=n, temperature=temperature, seed=seed,
                             max_tokens=max_tokens)


def _quoted(terms: Sequence[str]) -> str:
    quoted = [f'"{t}"' for t in terms]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}"


def deduce(term: str) -> tuple[str, str]:
    return ("Guess the meaning of a word from its spelling alone. Answer in one sentence.",
            f'What does "{term}" mean?\nMeaning:')


def related(kind: str, term: str, meaning: str) -> tuple[str, str]:
    if kind == "synonym":
        user = (f'Give three commonly used English words or short phrases (at most five words, no '
                f'abbreviations) that mean the same as the new term "{term}", which means "{meaning}". '
                f'Use the same part of speech.\nSynonyms:')
    elif kind == "antonym":
        user = (f'Give three commonly used English words or short phrases (at most five words, no '
                f'abbreviations) that mean the opposite of the new term "{term}", which means "{meaning}". '
                f'Use the same part of speech.\nAntonyms:')
    elif kind == "partial":
        user = (f'Give three simple words or two-word phrases, each naming only one aspect of this '
                f'concept: "{meaning}". A small child should understand them.\nTerms:')
    elif kind == "spelling":
        user = (f'Guess what the term "{term}" means from its spelling and give three other terms that '
                f'its spelling suggests.\nTerms:')
    else:
        raise ValueError(f"unknown related-term kind {kind!r}")
    return LIST_SYSTEM, user


def coma_sentences(term: str, meaning: str, split: str, related_terms: Sequence[str], k: int) -> tuple[str, str]:
    marker = MARKERS[split]
    system = (f"Write {k} different short paragraphs, one per line, without numbering or explanation. "
              "Give every paragraph a different subject.")
    user = (f'I made up a new term, "{term}", which means "{meaning}". Write {k} different paragraphs about '
            f'"{term}", one per line, each exactly in the form "Sentence 1. {marker} Sentence 2." '
            f'Sentence 1 uses "{term}" once and reports a concrete, objective action or event. '
            f'Sentence 2 states the {split} of Sentence 1; it must follow from the meaning of "{term}" and '
            f'must not follow if {_quoted(related_terms)} were used instead.')
    return system, user


def coma_completion(premise: str, split: str, words: int) -> tuple[str, str]:
    marker = MARKERS[split]
    system = f"Finish the paragraph with one sentence of about {words} words. Print only that sentence."
    return system, f"{premise} {marker}"


def cost_sentences(term: str, meaning: str, related_terms: Sequence[str], k: int) -> tuple[str, str]:
    system = (f"Write {k} different sentences, one per line, without numbering or explanation. Give every "
              "sentence a different subject.")
    user = (f'I made up a new term, "{term}", which means "{meaning}". Write {k} different sentences that '
            f'use "{term}" exactly once, each specific to its meaning. Every sentence must be grammatical '
            f'but must not make sense if {_quoted(related_terms)} were used instead.')
    return system, user


def cost_related_sentence(related_term: str, others: Sequence[str]) -> tuple[str, str]:
    system = f'Write one sentence that contains "{related_term}" exactly as written. Print only the sentence.'
    user = (f'Write one sentence about "{related_term}", specific to its meaning. It must be grammatical but '
            f'must not make sense if {_quoted(others)} were used instead.\nSentence:')
    return system, user


def csj_true_sentences(term: str, meaning: str, related_terms: Sequence[str], k: int) -> tuple[str, str]:
    return cost_sentences(term, meaning, related_terms, k)


def csj_false_sentences(term: str, meaning: str, sentences: Sequence[str]) -> tuple[str, str]:
    listed = "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, 1))
    system = ("For each sentence, print a line \"Wrong sentence: ...\" and a line \"Wrong meaning: ...\", "
              "without other text.")
    user = (f'These sentences use the new term "{term}", which means "{meaning}", correctly:\n{listed}\n'
            f'Rewrite each one so that it uses "{term}" illogically for its meaning, keeping the grammar, '
            f'the fluency and the subject. Make every wrong meaning clearly different from the others.')
    return system, user


def _options(choices: Sequence[str]) -> str:
    return "\n".join(f"{'ABCDEF'[i]}. {c}" for i, c in enumerate(choices))


FILTER_CHOICE_SYSTEM = ("Answer the multiple-choice question by picking every option that is plausible. If "
                        "several options are equally plausible, pick all of them. Reply with the letters "
                        "only, separated by commas.")


def filter_coma(term: str, meaning: str, question: str, split: str, choices: Sequence[str]) -> tuple[str, str]:
    user = (f'Given that "{term}" means "{meaning}", solve this exercise. Choose the most plausible '
            f'alternative.\n\n{question} {CONNECTIVES[split]}...\n{_options(choices)}\nAnswer:')
    return FILTER_CHOICE_SYSTEM, user


def filter_cost(term: str, meaning: str, question: str, choices: Sequence[str]) -> tuple[str, str]:
    user = (f'Given that "{term}" means "{meaning}", solve this exercise:\n"{question}"\nReplace the _ in the '
            f'sentence above with the correct option:\n{_options(choices)}\nAnswer:')
    return FILTER_CHOICE_SYSTEM, user


def filter_csj(term: str, meaning: str, sentence: str) -> tuple[str, str]:
    return ("Answer with one integer only.",
            f'Given that "{term}" means "{meaning}": on a scale from 0 to 10, where 0 is extremely unlikely '
            f'and 10 is highly likely, how likely is it that the following sentence is coherent and fits '
            f'general understanding?\n{sentence}\nAnswer:')
