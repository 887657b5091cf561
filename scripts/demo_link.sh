#!/usr/bin/env bash
# LINK / LINT on the bundled samples: the rules the graph grounds completely (allergies and
# dishes, towns and currencies, inventions after a death, invented UMLS treatments), in head and
# long-tail sets with a two-rule chain, exported as LINT-style JSONL, then the 13-template
# entailment probe with the tiny local model. Uses NEO4J_URI when set, otherwise the managed server.
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

[ -d out/models/tiny ] || $KF tiny-model out/models/tiny >/dev/null
# the report and its summary go to files; the log is shown only if the evaluation fails
$KF eval --benchmark "link:$NAME" --backend hf --model out/models/tiny --device cpu --max-tokens 4 \
    --limit 4 --out "$OUT/runs" --silent > "$OUT/eval.log" 2>&1 || { cat "$OUT/eval.log"; exit 1; }
$PY - "$OUT/runs/link-$NAME/summary.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["runs"]["link-probe"]["metrics"]["link/entailment"]
t = ", ".join(f"{k}:{100 * v['accuracy']:.0f}" for k, v in sorted(m["link_templates"].items(), key=lambda kv: int(kv[0])))
k, ht = m["link_known"], m["link_head_tail"]["accuracy"]
pct = lambda x: "-" if x is None else f"{100 * x:.1f}%"
print(f"tiny model on {k['statements']} statements: accuracy {pct(m['accuracy'])}; per template {t}")
print(f"known (all 13 right): {pct(k['rate'])}; head {pct(ht['head'])} vs long tail {pct(ht['longtail'])}, "
      f"relative drop {pct(ht['relative_drop'])}")
PY
