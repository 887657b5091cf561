// The facts events asserted (layer 'edit'), in read_source_facts' columns, for fine-tuning a
// copy of a model on an event's edit statements. An explicit unknown answer has object 'unknown'.
// $event_ids: [event id]
UNWIND $event_ids AS event_id
MATCH (:Event {id: event_id})-[:ASSERTS]->(f:Fact)<-[:HAS_FACT]-(s:Entity)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN event_id, f.id AS id, s.id AS subject_id, coalesce(s.name, s.id) AS subject, f.relation AS relation,
       coalesce(f.relation_label, f.relation) AS label, coalesce(f.kind, 'relation') AS kind,
       CASE WHEN coalesce(f.unknown, false) THEN 'unknown' ELSE coalesce(o.name, f.value) END AS object,
       f.object_id AS object_id, f.unit AS unit, f.start_year AS start_year, f.end_year AS end_year,
       f.seen_in AS seen_in, coalesce(f.temporal, false) AS temporal, f.source AS source
ORDER BY event_id, id
