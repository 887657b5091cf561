// Everything an export needs about a batch's artificial entities, read back from the graph:
// the entity, its parent, its facts with their operation and sources, and the dropped facts.
// Ordered by stable ids so exports are byte-identical.
MATCH (b:Batch {id: $batch})<-[:IN_BATCH]-(e:Entity:Artificial)-[:DERIVED_FROM {op: 'parent'}]->(p:Entity)
CALL (e) {
  MATCH (e)-[:HAS_FACT]->(f:Fact)
  OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
  WITH f, o ORDER BY f.id
  RETURN collect({id: f.id, op: f.op, kind: f.kind, relation: f.relation,
                  relation_label: f.relation_label, value: f.value, value_num: f.value_num,
                  unit: f.unit, object_id: o.id, object_name: o.name,
                  sources: COLLECT { MATCH (f)-[d:DERIVED_FROM]->(sf:Fact)
                                     RETURN sf.id + '|' + coalesce(d.role, '') ORDER BY sf.id }
                  }) AS facts
}
CALL (p) {
  MATCH (p)-[:HAS_FACT]->(f:Fact)
  WHERE coalesce(f.layer, 'source') = 'source'
  OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
  WITH f, o ORDER BY f.id
  RETURN collect({id: f.id, kind: f.kind, relation: f.relation, relation_label: f.relation_label,
                  value: f.value, value_num: f.value_num, unit: f.unit, object_id: o.id,
                  object_name: o.name}) AS parent_facts
}
RETURN e.id AS id, e.name AS name, e.rank AS rank, e.class_id AS class_id,
       e.alcuna_id AS alcuna_id, p.id AS parent_id, p.name AS parent_name, p.rank AS parent_rank,
       facts, parent_facts,
       COLLECT { MATCH (e)-[:DERIVED_FROM {op: 'dropout'}]->(df:Fact) RETURN df.id ORDER BY df.id } AS dropout
ORDER BY id
