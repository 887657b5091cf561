// knowforge view: the facts a question tests, with their subject and object entities (for
// links), layer and time qualifiers; a page of them ($skip, $limit).
MATCH (:Question {id: $question_id})-[:TESTS]->(f:Fact)
OPTIONAL MATCH (s:Entity)-[:HAS_FACT]->(f)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN f.id AS id, s.id AS subject_id, coalesce(s.name, f.subject_name, f.subject_id) AS subject,
       coalesce(f.relation_label, f.relation) AS relation, o.id AS object_id,
       coalesce(o.name, f.object_name, f.value, f.text) AS object, f.unit AS unit,
       coalesce(f.layer, 'source') AS layer, f.op AS op, f.start AS start, f.end AS end,
       f.point_in_time AS point_in_time
ORDER BY id
SKIP $skip LIMIT $limit
