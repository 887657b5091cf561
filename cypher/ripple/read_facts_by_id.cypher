// Facts by id with their subject and object names and the relation's label. $ids: [fact id]
UNWIND $ids AS id
MATCH (s:Entity)-[:HAS_FACT]->(f:Fact {id: id})
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
OPTIONAL MATCH (rel:Relation {id: f.relation})
RETURN f.id AS fact_id, s.id AS subject_id, s.name AS subject, f.relation AS relation,
       coalesce(f.relation_label, rel.label) AS relation_label, o.id AS object_id, coalesce(o.name, f.value) AS object,
       coalesce(f.layer, 'source') AS layer, coalesce(f.unknown, false) AS unknown
ORDER BY fact_id
