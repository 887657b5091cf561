// knowforge view, LINK: a statement's chain of rules and premises. The conclusion, every fact it
// rests on through DERIVED_FROM (up to 8 steps: --chain-depth chains conclusions of earlier
// rules), each premise marked by where it came from: the graph (a source fact), a model (a
// premise the knowledge model proposed and the critic accepted), the statement's own assumption,
// or an earlier rule's conclusion. $key: the conclusion fact's id; $limit: the most edges.
// Returns the viewer's graph contract {nodes, edges}.
MATCH (c:Fact {id: $key})
WHERE c.layer = 'inferred'
CALL (c) {
  OPTIONAL MATCH (c)-[:DERIVED_FROM*1..8]->(x:Fact)
  RETURN collect(DISTINCT x) AS reached
}
CALL (c) {
  OPTIONAL MATCH (c)-[:DERIVED_FROM*0..7]->(:Fact)-[d:DERIVED_FROM]->(:Fact)
  RETURN collect(DISTINCT d) AS steps
}
CALL (c, reached) {
  UNWIND [c] + reached AS f
  WITH DISTINCT f
  OPTIONAL MATCH (subject:Entity)-[:HAS_FACT]->(f)
  OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
  RETURN collect({id: f.id,
                  label: coalesce(f.text, coalesce(subject.name, f.subject_id) + ' ' + coalesce(f.relation_label, f.relation)
                                  + ' ' + coalesce(o.name, toString(f.value), '')),
                  kind: CASE WHEN f = c THEN 'conclusion'
                             WHEN f.op = 'conclusion' THEN 'chain'
                             WHEN f.op = 'assumed' THEN 'assumption'
                             WHEN f.op = 'proposed' THEN 'model'
                             ELSE 'graph' END,
                  entity: subject.id,
                  title: CASE WHEN f.op = 'proposed' THEN 'proposed by a model, critic ' + coalesce(toString(f.critic), 'n/a')
                              WHEN f.rule IS NOT NULL THEN 'rule ' + f.rule
                              ELSE coalesce(f.layer, 'source') + ' fact ' + f.id END}) AS nodes
}
RETURN nodes,
       [d IN steps[..$limit] | {source: startNode(d).id, target: endNode(d).id, label: d.predicate, kind: d.role,
                                title: d.role + CASE WHEN d.rule IS NULL THEN '' ELSE ' of rule ' + d.rule END}] AS edges
