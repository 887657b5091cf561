// knowforge view: a page of the facts whose object is an entity ($id), with their subjects.
MATCH (:Entity {id: $id})<-[:OBJECT]-(f:Fact)
OPTIONAL MATCH (s:Entity)-[:HAS_FACT]->(f)
RETURN f.id AS id, s.id AS subject_id, coalesce(s.name, f.subject_id) AS subject,
       coalesce(f.relation_label, f.relation) AS relation, coalesce(f.layer, 'source') AS layer
ORDER BY relation, subject, id
SKIP $skip LIMIT $limit
