"""A scripted OpenAI-compatible server for NewTerm tests (127.0.0.1, /v1/completions only).

It reads each prompt, recognises which NewTerm step sent it, and answers so that every
decision of the pipeline is known in advance:

* generation: deterministic sentences built from the term; COMA gold sentences say "gold
  outcome", distractor completions "other outcome <hash>"; COST sentences written for a
  related term end with "event <hash of that term>" so a grader can find their gold;
* the filter picks the gold option, plus every option for terms named in ``PICK_ALL`` (fewer
  than 3 distractors stay unpicked), and nothing right for terms in ``MISS_GOLD``; CSJ
  ratings are 9 for true sentences and 1 for false ones, except ``LOW_TRUE`` (true rated 5);
* echo + logprobs give a log-likelihood per token that depends on the token;
* evaluation: Base always answers "A" / "YES"; Gold answers right;
* ChroKnow's LLM distractors (docs/chrono.md's ``--distractors llm`` example): three invented
  names per question, and a verification that marks the gold option (a) alone, so every
  question is done in the first round (a reply the pipeline cannot use made it ask three rounds
  for every question and fall back to the graph: 5,304 requests for 83 facts, 2.3x the
  successful path's).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PICK_ALL = {"quibbet"}        # COMA/COST filter picks every option → dropped (too few unpicked)
MISS_GOLD = {"snarple"}       # COMA/COST filter picks a wrong option only → dropped (gold not picked)
LOW_TRUE = {"quibbet"}        # CSJ true sentences rated 5 → dropped
TOKEN = re.compile(r"\s*\S+")


def short_hash(text: str) -> str:
    return hashlib.sha1(text.strip().lower().encode("utf-8")).hexdigest()[:6]


def _term(prompt: str) -> str | None:
    m = re.search(r'(?:new term,? "|Given that (?:the term )?")([^"]+)"', prompt)
    return m.group(1) if m else None


def _options(prompt: str) -> list[str]:
    return [m.group(2).strip() for m in re.finditer(r"(?m)^([A-F])\. (.*)$", prompt)]


def token_logprob(token: str) -> float:
    return -0.05 - 0.1 * (sum(map(ord, token)) % 7)


# invented, so no gold of the samples fuzzy-matches one; distinct words, so none matches another
CHRONO_DISTRACTORS = ("Quellmoor Athletic", "Brannoch Institute", "Ostravine Pike Society", "Halvering Council",
                      "Tessaly Works", "Dunmarrow Guild")


def chrono_distractors(prompt: str) -> str:
    """Three options for a ChroKnow distractor prompt, which opened "1." itself."""
    start = int(short_hash(prompt), 16) % len(CHRONO_DISTRACTORS)
    names = [CHRONO_DISTRACTORS[(start + k) % len(CHRONO_DISTRACTORS)] for k in range(3)]
    return f" {names[0]}\n2. {names[1]}\n3. {names[2]}"


def answer(prompt: str) -> str:
    """The scripted reply to one prompt."""
    # --- ChroKnow's LLM distractors and their verification (generators/chrono/distractors.py) ---
    if "Write three plausible incorrect options for this question." in prompt:
        return chrono_distractors(prompt)
    if "List the letters of ALL options that are correct answers" in prompt:
        return "a"                       # the gold comes first (verify_prompt)
    term = _term(prompt) or ""
    # --- evaluation (official phrasings) ---
    if 'printing exactly one option from "A", "B", "C", "D"' in prompt or 'printing "YES" or "NO"' in prompt \
            or 'printing "Correct"' in prompt or 'printing "Acceptable"' in prompt:
        gold = prompt.startswith("Given that")
        csj = 'printing "YES"' in prompt or 'printing "Correct"' in prompt or 'printing "Acceptable"' in prompt
        words = (("YES", "NO") if 'printing "YES"' in prompt else ("Correct", "Incorrect")
                 if 'printing "Correct"' in prompt else ("Acceptable", "Unacceptable"))
        if csj:
            if not gold:
                return words[0]
            return words[0] if "discussed" in prompt else words[1]
        if not gold:
            return "A"
        options = _options(prompt) or _inline_options(prompt)
        return "ABCD"[_gold_option(prompt, options, term)]
    # --- the filter ---
    if "picking every option that is plausible" in prompt:
        options = _options(prompt)
        right = _gold_option(prompt, options, term)
        if term in PICK_ALL:
            return ", ".join("ABCDEF"[:len(options)])
        if term in MISS_GOLD:
            return "ABCDEF"[(right + 1) % len(options)]
        return "ABCDEF"[right]
    if "on a scale from 0 to 10" in prompt:
        if "discussed" in prompt:
            return "5" if term in LOW_TRUE else "9"
        return "1"
    # --- generation ---
    if "What does" in prompt and "Meaning:" in prompt:
        word = re.search(r'What does "([^"]+)" mean', prompt).group(1)
        return f"Something to do with {word[:3]}."
    if prompt.rstrip().endswith(("Synonyms:", "Antonyms:", "Terms:")):
        kind = ("synonym" if "Synonyms:" in prompt else "antonym" if "Antonyms:" in prompt
                else "aspect" if "one aspect" in prompt else "guess")
        word = re.search(r'(?:term "|concept: ")([^"]+)"', prompt).group(1)
        return "\n".join(f"{kind} {n} of {word.split()[0][:8]}" for n in ("one", "two", "three"))
    if "each exactly in the form" in prompt:
        marker = "As an effect," if "As an effect," in prompt else "This happened because"
        k = int(re.search(r"Write (\d+) different paragraphs", prompt).group(1))
        return "\n".join(f"People adopted {term} quickly in town {i}. {marker} the gold outcome {i} "
                         f"happened to everyone there." for i in range(1, k + 1))
    if prompt.startswith("Finish the paragraph"):
        return f"the other outcome {short_hash(prompt)} followed for many people."
    if "use \"" in prompt and "exactly once" in prompt:
        k = int(re.search(r"Write (\d+) different sentences", prompt).group(1))
        return "\n".join(f"The committee discussed {term} at length in meeting {i}." for i in range(1, k + 1))
    if prompt.startswith("Write one sentence that contains"):
        related = re.search(r'contains "([^"]+)"', prompt).group(1)
        return f"Everyone noticed the {related} during event {short_hash(related)}."
    if "illogically" in prompt:
        sentences = re.findall(r"(?m)^\d+\. (.*)$", prompt)
        return "\n".join(f"Wrong sentence: The {term} melted the moon in case {i}.\nWrong meaning: nonsense {i}"
                         for i in range(1, len(sentences) + 1))
    return "I do not know."


def _inline_options(prompt: str) -> list[str]:
    m = re.search(r"does _ refer to A\. (.*), B\. (.*), C\. (.*), or D\. (.*)\?", prompt)
    return list(m.groups()) if m else []


def _gold_option(prompt: str, options: list[str], term: str) -> int:
    for i, option in enumerate(options):
        if "gold outcome" in option:
            return i
    match = re.search(r"during event ([0-9a-f]{6})", prompt)
    if match:
        for i, option in enumerate(options):
            if short_hash(option) == match.group(1):
                return i
    for i, option in enumerate(options):
        if option.lower() == term.lower():
            return i
    return 0


class Handler(BaseHTTPRequestHandler):
    prompts: list[str] = []
    lock = threading.Lock()

    def log_message(self, *args):
        return

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/v1/completions":
            return self._reply(404, {"error": {"message": "only /v1/completions"}})
        prompt = body["prompt"]
        with Handler.lock:
            Handler.prompts.append(prompt)
        if body.get("echo"):
            tokens, offsets = [], []
            for m in TOKEN.finditer(prompt):
                tokens.append(m.group())
                offsets.append(m.start())
            values = [None] + [token_logprob(t) for t in tokens[1:]]
            choice = {"index": 0, "text": prompt, "finish_reason": "length",
                      "logprobs": {"tokens": tokens, "token_logprobs": values, "text_offset": offsets,
                                   "top_logprobs": None}}
        else:
            choice = {"index": 0, "text": answer(prompt), "finish_reason": "stop", "logprobs": None}
        # n samples of one prompt: the script answers alike every time
        choices = [{**choice, "index": i} for i in range(int(body.get("n") or 1))]
        return self._reply(200, {"id": "x", "object": "text_completion", "created": 0, "model": body["model"],
                                 "choices": choices})

    def _reply(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve():
    """(server, base_url); stop with ``server.shutdown()``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Handler.prompts = []
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"
