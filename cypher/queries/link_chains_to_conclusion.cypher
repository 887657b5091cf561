// Every inference chain that ends in a given conclusion, down to the facts it rests on.
// Params: $benchmark (e.g. 'link:chain' of docs/link.md, or the demo's 'link:demo'), $conclusion
// (the conclusion's text, e.g. 'PersonX should check the menu carefully at the italian restaurant.').
// A source fact is shown as "subject relation object"; inferred facts by their text; roles say
// whether a step is an assumed premise, a graph or model premise, or an earlier rule ('chain').
MATCH (c:Fact {op: 'conclusion'})
WHERE c.benchmark = $benchmark AND c.text = $conclusion
MATCH p = (c)-[:DERIVED_FROM*1..8]->(leaf:Fact)
WHERE NOT (leaf)-[:DERIVED_FROM]->()
RETURN c.premise AS premise,
       [n IN nodes(p) | coalesce(n.text,
            coalesce([(s)-[:HAS_FACT]->(n) | s.name][0], n.subject_id) + ' ' + coalesce(n.relation_label, n.relation)
            + ' ' + coalesce([(n)-[:OBJECT]->(o) | o.name][0], n.value, ''))] AS chain,
       [r IN relationships(p) | r.role] AS roles
ORDER BY premise, chain
