#!/usr/bin/env bash
# LINK / LINT on the bundled samples: the rules the graph grounds completely (allergies and
# dishes, towns and currencies, inventions after a death, invented UMLS treatments), in head and
# long-tail sets with a two-rule chain, exported as LINT-style JSONL, then the 13-template
# entailment probe with the demo's model ($MODEL; the tiny local model when unset), every number
# with its interval and chance level. Uses NEO4J_URI when set, otherwise the managed server.
set -euo pipefail
KF=${KF:-.venv/bin/knowforge}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-out/link}
NAME=${NAME:-demo}
mkdir -p "$OUT"

if [ -z "${NEO4J_URI:-}" ]; then $KF neo4j start >/dev/null; fi
if [ "$($KF query "MATCH (c:CommonsenseConcept) RETURN count(c) AS n" --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')" = "0" ]; then
  $KF load samples --silent
fi

# no model: every predicate of these rules is a fact pattern in the graph; popularity ranks
$KF generate link --name "$NAME" --n 4 --chain-depth 2 --seed 0 --silent \
    --rule outcome_allergy_dish --rule outcome_allergy_menu --rule locational_currency \
    --rule temporal_contemporary_invention --rule outcome_treatment
$KF export link --name "$NAME" --format lint --out "$OUT/lint" >/dev/null
$PY - "$OUT/lint" <<'PY'
import json, sys
from pathlib import Path
for dist in ("head", "longtail"):
    rows = [json.loads(l) for l in (Path(sys.argv[1]) / f"lint_{dist}.jsonl").read_text().splitlines()]
    print(f"{dist}: {len(rows)} statements, e.g.")
    for r in rows[::5][:3]:
        hidden = "; ".join(h["text"] for h in r["hidden_premises"])
        print(f"  [{r['rule']}] {r['premise']} => {r['conclusion']}  (hidden: {hidden})")
PY
echo "a rule chain in the graph (depth 2 conclusion -> depth 1 conclusion -> source facts):"
$KF query "MATCH (c:Fact {benchmark: \$b, depth: 2})-[:DERIVED_FROM {role: 'chain'}]->(m:Fact)-[:DERIVED_FROM {role: 'premise'}]->(s:Fact {layer: 'source'})<-[:HAS_FACT]-(x:Entity) MATCH (s)-[:OBJECT]->(o:Entity) RETURN c.premise + ' => ' + c.text AS statement, m.text AS via, x.name + ' ' + s.relation + ' ' + o.name AS fact ORDER BY statement, fact LIMIT 3" -p b="link:$NAME"

if [ -z "${MODEL:-}" ]; then
  MODEL=out/models/tiny
  [ -d "$MODEL" ] || $KF tiny-model "$MODEL" >/dev/null
fi
# the report and its summary go to files; the log is shown only if the evaluation fails. Each probe is
# scored by the likelihood of its template's two labels (Yes/No, True/False, Right/Wrong), as
# lm-evaluation-harness scores yes/no tasks, so a small model's bias shows instead of unparsed replies.
$KF eval --benchmark "link:$NAME" --backend hf --model "$MODEL" --device cpu --max-tokens 4 \
    --mc-scoring likelihood --out "$OUT/runs" --silent > "$OUT/eval.log" 2>&1 || { cat "$OUT/eval.log"; exit 1; }
$PY - "$OUT/runs/link-$NAME/summary.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
run = summary["runs"]["link-probe"]
m = run["metrics"]["link/entailment"]
rows = {r["name"]: r for r in run["intervals"]["link/entailment"]}
pm = lambda r, sign="": "-" if r.get("value") is None else f"{100 * r['value']:{sign}.1f}" + (
    f" ± {100 * (r['ci'][1] - r['ci'][0]) / 2:.1f}" if r.get("ci") else "")
mark = lambda r: " *" if r.get("excludes_chance") else ""
k = m["link_known"]
print(f"model {summary['model']} on {k['statements']} statements ({rows['link_known.rate']['units']} units), by "
      "likelihood; % ± half the 95% interval (a bootstrap over statements); * the interval excludes chance")
print("  per template (chance 50):  " + ", ".join(
    f"{t}: {pm(rows[f'link_templates.{t}.accuracy'])}{mark(rows[f'link_templates.{t}.accuracy'])}"
    for t in sorted(m["link_templates"], key=int)))
for name, label, chance in (("accuracy", "accuracy", "50"), ("known", "known (all 13 right)", "0.01")):
    head, tail = rows[f"link_head_tail.{name}.head"], rows[f"link_head_tail.{name}.longtail"]
    drop = rows[f"link_head_tail.{name}.relative_drop"]
    p = drop.get("p_value")
    print(f"  {label} (chance {chance}): head {pm(head)}{mark(head)} vs long tail {pm(tail)}{mark(tail)}, "
          f"relative drop {pm(drop, '+') + '%' if drop.get('value') is not None else '-'} "
          f"(p {'-' if p is None else f'{p:.3f}'}; unpaired: head and long tail are different statements)")
overall = [rows[f"link_head_tail.accuracy.{d}"] for d in ("head", "longtail")]
if not any(r.get("excludes_chance") for r in overall):
    by_label = {}
    for t, v in m["link_templates"].items():
        by_label.setdefault(v["label"], []).append(v["accuracy"])
    print("  note: neither head nor long-tail accuracy can be told from chance. The templates whose interval "
          "excludes 50 are the model's answer bias, not knowledge: templates that share a label score alike ("
          + ", ".join(f"{label} {100 * sum(v) / len(v):.0f}%" for label, v in sorted(by_label.items()))
          + "). The demo's model was taught the graph's facts, not LINT's inferences over them; LINK's numbers "
          "need a model that can read a premise and judge a conclusion.")
PY
