// The triplets events change, for weight editors (ROME, MEMIT): every fact an event asserted
// (layer 'edit') or retracted, with its subject's name and the relation's label (the fact's own,
// else the vocabulary's), in read_source_facts' columns plus the change. An explicit unknown
// answer has object 'unknown'.
// $event_ids: [event id]
UNWIND $event_ids AS event_id
MATCH (:Event {id: event_id})-[r:ASSERTS|RETRACTS]->(f:Fact)<-[:HAS_FACT]-(s:Entity)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
OPTIONAL MATCH (rel:Relation {id: f.relation})
RETURN event_id, CASE type(r) WHEN 'ASSERTS' THEN 'asserted' ELSE 'retracted' END AS change,
       f.id AS id, s.id AS subject_id, coalesce(s.name, s.id) AS subject, f.relation AS relation,
       coalesce(f.relation_label, rel.label, f.relation) AS label, coalesce(f.kind, 'relation') AS kind,
       CASE WHEN coalesce(f.unknown, false) THEN 'unknown' ELSE coalesce(o.name, f.value) END AS object,
       f.object_id AS object_id, f.unit AS unit, f.start_year AS start_year, f.end_year AS end_year,
       f.seen_in AS seen_in, coalesce(f.temporal, false) AS temporal, f.source AS source
ORDER BY event_id, change, id
