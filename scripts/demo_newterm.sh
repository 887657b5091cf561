#!/usr/bin/env bash
# NewTerm on the bundled slice of the 2022 release: load the part of WordNet its meanings need,
# import the slice as a benchmark, evaluate Base vs Gold (three official phrasings, pooled)
# with the demo's model, export it back in the release layout (byte-identical) and ask the
# graph which lemmas the terms' meanings lead to. No generator model needed. Uses NEO4J_URI
# when set, otherwise the managed server (started when it is not running, as in demo_link.sh).
# MODEL defaults to the tiny local model.
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-runs/demo-newterm}
SLICE=kg/samples/newterm_2022
mkdir -p "$OUT"
if [ -z "${NEO4J_URI:-}" ]; then $KF neo4j start >/dev/null; fi
if [ -z "${MODEL:-}" ]; then
  MODEL="$OUT/tiny-model"
  [ -d "$MODEL" ] || $KF tiny-model "$MODEL" --seed 0 >/dev/null
fi

# A full WordNet load (117,659 synsets) takes minutes on two cores (benchmarks/newterm_rate.py);
# the demo loads the synsets of the slice's head words and their neighbours only.
$PY - "$SLICE/new_terms.jsonl" > "$OUT/wordnet_words.txt" <<'PY'
import json, sys
from knowforge.kg.loaders.newterms import head_word_candidates
words = {w for line in open(sys.argv[1], encoding="utf-8")
         for w, _ in head_word_candidates(json.loads(line)["meaning"])[:6]}
print("\n".join(sorted(words)))
PY
$KF load wordnet --entities "$OUT/wordnet_words.txt" --silent | tail -n 4
$KF generate newterm --import "$SLICE" --name sample2022 --silent
# Each phrasing is scored by the likelihood of the answers its system prompt names (A-D; YES/NO, ...),
# as lm-evaluation-harness scores multiple choice: a small model that never prints a parseable
# letter would otherwise score 0 everywhere (NewTerm's own protocol generates; see docs/newterm.md).
$KF eval --benchmark newterm:sample2022 --task COMA_clean --task COST_clean --task CSJ_clean \
  --backend hf --model "$MODEL" --device cpu --max-tokens 4 --mc-scoring likelihood --out "$OUT/runs" \
  --silent >/dev/null
$PY - "$OUT/runs/newterm-sample2022/summary.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
gold = summary["runs"]["newterm(setting=gold)"]
pm = lambda r, sign="": "-" if r.get("value") is None else f"{100 * r['value']:{sign}.1f}" + (
    f" ± {100 * (r['ci'][1] - r['ci'][0]) / 2:.1f}" if r.get("ci") else "")
print(f"NewTerm 2022 slice, model {summary['model']}: Base vs Gold by likelihood (CSJ: balanced accuracy), in %, "
      "± half the 95% interval (a bootstrap over terms; Base and Gold of a term resampled together); "
      "chance: random guesses; * the interval excludes chance")
print(f"  {'task':12s} {'terms':>5s} {'chance':>6s}  {'Base':>13s}  {'Gold':>13s}  {'Base - Gold':>13s}  p")
any_real = False
for task, rows in sorted(gold["intervals"].items()):
    rows = {r["name"]: r for r in rows}
    if "newterm_base" not in rows:
        continue
    base, gold_, gap = rows["newterm_base"], rows["newterm_gold"], rows["newterm_gap"]
    mark = lambda r: " *" if r.get("excludes_chance") else "  "
    any_real |= bool(base.get("excludes_chance") or gold_.get("excludes_chance") or gap.get("excludes_zero"))
    p = gap.get("p_value")
    print(f"  {task.split('/')[-1]:12s} {base['units']:5d} {100 * base['chance']:6.1f}  {pm(base):>11s}{mark(base)}  "
          f"{pm(gold_):>11s}{mark(gold_)}  {pm(gap, '+'):>13s}  {'-' if p is None else f'{p:.3f}'} ({gap.get('test')})")
if not any_real:
    terms = max(r["units"] for rows in gold["intervals"].values() for r in rows)
    print(f"  note: no interval here excludes chance, and no Base - Gold interval excludes 0. The slice has {terms} "
          "terms, so its intervals span tens of points, and the demo's model was taught the graph's facts, not "
          "English usage of new words: telling NewTerm numbers from chance needs the full release (about 250 "
          "items a task) and a model that reads a definition in context.")
print(f"  report with the plot of Base vs Gold by year: {gold['report']}/report.md")
PY
$KF export newterm --name sample2022 --format newterm --out "$OUT/release" >/dev/null
for f in "$SLICE"/*.jsonl; do cmp -s "$f" "$OUT/release/$(basename "$f")" || { echo "export differs: $f"; exit 1; }; done
echo "export of newterm:sample2022 is byte-identical to $SLICE"
$KF query "MATCH (t:Term)-[:HAS_FACT]->(m:Fact {relation: 'meaning', start_year: 2022})-[:HEAD_WORD]->(l:Lemma) \
  WHERE (:TermEntry {benchmark: 'newterm:sample2022'})-[:OF_TERM]->(t) \
  WITH t, m, l ORDER BY l.name RETURN t.name AS term, m.value AS meaning, collect(l.name) AS head_lemmas \
  ORDER BY term LIMIT 6"
