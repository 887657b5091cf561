// Facts by id with their subject and object names. $ids: [fact id]
UNWIND $ids AS id
MATCH (s:Entity)-[:HAS_FACT]->(f:Fact {id: id})
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN f.id AS fact_id, s.id AS subject_id, s.name AS subject, f.relation AS relation,
       o.id AS object_id, coalesce(o.name, f.value) AS object,
       coalesce(f.layer, 'source') AS layer, coalesce(f.unknown, false) AS unknown
ORDER BY fact_id
