// The demo: a LINK rule chain in the graph: a depth-2 conclusion, the depth-1 conclusion it
// follows from, and the source facts under that one.
// Parameters: $benchmark (e.g. 'link:demo'), $limit
MATCH (c:Fact {benchmark: $benchmark, depth: 2})-[:DERIVED_FROM {role: 'chain'}]->(m:Fact)
      -[:DERIVED_FROM {role: 'premise'}]->(s:Fact {layer: 'source'})<-[:HAS_FACT]-(x:Entity)
MATCH (s)-[:OBJECT]->(o:Entity)
RETURN c.premise + ' => ' + c.text AS statement, m.text AS via, x.name + ' ' + s.relation + ' ' + o.name AS fact
ORDER BY statement, fact
LIMIT $limit
