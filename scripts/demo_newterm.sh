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
$KF eval --benchmark newterm:sample2022 --task COMA_clean --task COST_clean --task CSJ_clean \
  --backend hf --model "$MODEL" --device cpu --max-tokens 4 --out "$OUT/runs" --silent >/dev/null
$PY - "$OUT/runs/newterm-sample2022/summary.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
gold = summary["runs"]["newterm(setting=gold)"]
print(f"NewTerm 2022 slice, model {summary['model']}: Base vs Gold (CSJ: balanced accuracy), in %")
for task, metrics in sorted(gold["metrics"].items()):
    if metrics.get("newterm_base") is not None:
        print(f"  {task:20s} Base {100 * metrics['newterm_base']:5.1f}  Gold {100 * metrics['newterm_gold']:5.1f}"
              f"  gap {100 * metrics['newterm_gap']:+5.1f}")
print(f"  report with the plot of Base vs Gold by year: {gold['report']}/report.md")
PY
$KF export newterm --name sample2022 --format newterm --out "$OUT/release" >/dev/null
for f in "$SLICE"/*.jsonl; do cmp -s "$f" "$OUT/release/$(basename "$f")" || { echo "export differs: $f"; exit 1; }; done
echo "export of newterm:sample2022 is byte-identical to $SLICE"
$KF query "MATCH (t:Term)-[:HAS_FACT]->(m:Fact {relation: 'meaning', start_year: 2022})-[:HEAD_WORD]->(l:Lemma) \
  WHERE (:TermEntry {benchmark: 'newterm:sample2022'})-[:OF_TERM]->(t) \
  WITH t, m, l ORDER BY l.name RETURN t.name AS term, m.value AS meaning, collect(l.name) AS head_lemmas \
  ORDER BY term LIMIT 6"
