// KnowGen: which facts a question rests on: the facts it tests (generated facts of ẽ and, for
// KD/KA, source facts of real entities) and, through provenance, the source facts the
// generated ones were derived from.
// Parameter: $question (a question id like 'gen:b1:000001:q003').
MATCH (q:Question {id: $question})-[:TESTS]->(f:Fact)
OPTIONAL MATCH (subject:Entity)-[:HAS_FACT]->(f)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(s:Fact)<-[:HAS_FACT]-(ss:Entity)
OPTIONAL MATCH (s)-[:OBJECT]->(so:Entity)
RETURN q.text AS question, f.id AS fact_id, coalesce(f.layer, 'source') AS layer, f.op AS op,
       subject.name AS subject, coalesce(f.relation_label, f.relation) AS relation,
       coalesce(o.name, f.value + coalesce(' ' + f.unit, '')) AS object,
       d.role AS derivation, s.id AS source_fact_id, ss.name AS source_subject,
       coalesce(so.name, s.value + coalesce(' ' + s.unit, '')) AS source_object
ORDER BY fact_id, source_fact_id
