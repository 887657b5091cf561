// knowforge view, KnowGen: an artificial entity beside its parent. Edges from the entity are its
// facts, marked by the operation that made them (heredity, variation, extension); edges from
// the parent are the facts it lost (dropout) and the values a variation replaced (parent).
// $key: the artificial entity's id; $limit: the most facts of each kind.
// Returns the viewer's graph contract: {nodes: [{id, label, kind, entity?, title?}],
// edges: [{source, target, label, kind, title?}]}.
MATCH (e:Entity:Artificial {id: $key})
OPTIONAL MATCH (e)-[:DERIVED_FROM {op: 'parent'}]->(p:Entity)
CALL (e) {
  OPTIONAL MATCH (e)-[:HAS_FACT]->(g:Fact)
  OPTIONAL MATCH (g)-[:OBJECT]->(o:Entity)
  OPTIONAL MATCH (g)-[:DERIVED_FROM {role: 'sampled'}]->(:Fact)<-[:HAS_FACT]-(sibling:Entity)
  WITH g, o, sibling ORDER BY g.op, g.relation, g.id
  RETURN [x IN collect({fact: g.id, op: g.op, relation: coalesce(g.relation_label, g.relation),
                        object_id: o.id,
                        object: coalesce(o.name, toString(g.value) + coalesce(' ' + g.unit, '')),
                        sibling: sibling.name}) WHERE x.fact IS NOT NULL][..$limit] AS own
}
CALL (e) {
  OPTIONAL MATCH (e)-[:DERIVED_FROM {op: 'dropout'}]->(s:Fact)
  OPTIONAL MATCH (s)-[:OBJECT]->(o:Entity)
  WITH s, o ORDER BY s.relation, s.id
  RETURN [x IN collect({fact: s.id, relation: coalesce(s.relation_label, s.relation), object_id: o.id,
                        object: coalesce(o.name, toString(s.value) + coalesce(' ' + s.unit, ''))}) WHERE x.fact IS NOT NULL][..$limit]
         AS dropped
}
CALL (e) {
  OPTIONAL MATCH (e)-[:HAS_FACT]->(g:Fact {op: 'variation'})-[:DERIVED_FROM {role: 'varied'}]->(s:Fact)
  OPTIONAL MATCH (s)-[:OBJECT]->(o:Entity)
  WITH s, o ORDER BY s.relation, s.id
  RETURN [x IN collect({fact: s.id, relation: coalesce(s.relation_label, s.relation), object_id: o.id,
                        object: coalesce(o.name, toString(s.value) + coalesce(' ' + s.unit, ''))}) WHERE x.fact IS NOT NULL][..$limit]
         AS varied
}
WITH e, p, own, dropped, varied
RETURN [{id: e.id, label: e.name, kind: 'artificial', entity: e.id, title: 'artificial entity ' + e.id}]
       + CASE WHEN p IS NULL THEN [] ELSE [{id: p.id, label: p.name, kind: 'parent', entity: p.id,
                                            title: 'parent ' + p.id}] END
       + [x IN own + dropped + varied WHERE x.object_id IS NOT NULL
          | {id: x.object_id, label: x.object, kind: 'entity', entity: x.object_id}]
       + [x IN own + dropped + varied WHERE x.object_id IS NULL
          | {id: 'value:' + x.fact, label: x.object, kind: 'value'}] AS nodes,
       [x IN own | {source: e.id, target: coalesce(x.object_id, 'value:' + x.fact), label: x.relation,
                    kind: x.op, title: x.op + CASE WHEN x.sibling IS NULL THEN '' ELSE ' from sibling ' + x.sibling END}]
       + CASE WHEN p IS NULL THEN [] ELSE
           [{source: e.id, target: p.id, label: 'derived from', kind: 'derived'}]
           + [x IN dropped | {source: p.id, target: coalesce(x.object_id, 'value:' + x.fact), label: x.relation,
                              kind: 'dropout', title: 'dropped: the entity does not have it'}]
           + [x IN varied | {source: p.id, target: coalesce(x.object_id, 'value:' + x.fact), label: x.relation,
                             kind: 'parent', title: "the parent's value, replaced by a variation"}]
         END AS edges
