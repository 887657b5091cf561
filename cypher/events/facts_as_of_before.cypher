// The facts of some entities as the graph stood just BEFORE an event was applied:
// source facts valid at the event year, plus edit facts of earlier events (lower seq),
// minus facts retracted by earlier events. Paste in Neo4j Browser with
// :param event_id => '...'; :param subject_ids => ['Q76'].
MATCH (ev:Event {id: $event_id})
MATCH (s:Entity)-[:HAS_FACT]->(f:Fact)
WHERE s.id IN $subject_ids
  AND (f.end_year IS NULL OR f.end_year > ev.year)
  AND (f.start_year IS NULL OR f.start_year <= ev.year)
  AND (f.layer <> 'edit' OR EXISTS { MATCH (a:Event)-[:ASSERTS]->(f) WHERE a.seq < ev.seq })
  AND NOT EXISTS { MATCH (r:Event)-[:RETRACTS]->(f) WHERE r.seq < ev.seq }
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN s.id AS subject_id, f.relation AS relation, o.id AS object_id,
       coalesce(o.name, f.value) AS object, coalesce(f.unknown, false) AS unknown,
       f.layer AS layer, f.id AS fact_id
ORDER BY subject_id, relation, object_id, fact_id
