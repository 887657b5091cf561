// The statements whose premises came entirely from the graph: no premise a model proposed
// anywhere along their chain, and at least one source fact under them. Params: $benchmark.
// (The same set as `c.grounding = 'graph'`, computed here from the edges themselves.)
MATCH (c:Fact {op: 'conclusion'})
WHERE c.benchmark = $benchmark
  AND NOT EXISTS { (c)-[:DERIVED_FROM*1..8]->(:Fact {op: 'proposed'}) }
  AND EXISTS { (c)-[:DERIVED_FROM*1..8]->(:Fact {layer: 'source'}) }
RETURN c.rule AS rule, c.premise AS premise, c.text AS conclusion, c.distributions AS distributions,
       c.depth AS depth,
       COUNT { (c)-[:DERIVED_FROM*1..8]->(:Fact {layer: 'source'}) } AS source_facts
ORDER BY rule, premise, conclusion
