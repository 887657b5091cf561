// KnowGen: diff an artificial entity against its parent, one row per property and operation
// (heredity: same value; variation: old -> new; dropout: parent's value, absent on ẽ;
// extension: new value copied from a sibling, which is named).
// Parameter: $entity (an artificial entity id like 'gen:b1:000001' or its name).
MATCH (e:Entity:Artificial)
WHERE e.id = $entity OR e.name = $entity
MATCH (e)-[:DERIVED_FROM {op: 'parent'}]->(p:Entity)
CALL (e) {
  MATCH (e)-[:HAS_FACT]->(g:Fact)
  OPTIONAL MATCH (g)-[:OBJECT]->(o:Entity)
  OPTIONAL MATCH (g)-[d:DERIVED_FROM]->(s:Fact)
  WHERE d.role IN ['inherited', 'varied', 'sampled']
  OPTIONAL MATCH (s)-[:OBJECT]->(so:Entity)
  OPTIONAL MATCH (src:Entity)-[:HAS_FACT]->(s)
  RETURN g.op AS op, coalesce(g.relation_label, g.relation) AS property,
         coalesce(so.name, s.value + coalesce(' ' + s.unit, '')) AS parent_value,
         coalesce(o.name, g.value + coalesce(' ' + g.unit, '')) AS new_value,
         CASE WHEN g.op = 'extension' THEN src.name END AS from_sibling
  UNION ALL
  MATCH (e)-[:DERIVED_FROM {op: 'dropout'}]->(s:Fact)
  OPTIONAL MATCH (s)-[:OBJECT]->(so:Entity)
  RETURN 'dropout' AS op, coalesce(s.relation_label, s.relation) AS property,
         coalesce(so.name, s.value + coalesce(' ' + s.unit, '')) AS parent_value,
         null AS new_value, null AS from_sibling
}
RETURN e.name AS entity, p.name AS parent, op, property, parent_value, new_value, from_sibling
ORDER BY op, property, parent_value, new_value
