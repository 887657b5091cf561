// A run's recorded ripple probe answers, of one event ($event_id) or of every event ($event_id
// null), in a stable order. $run_id.
MATCH (:Run {id: $run_id})-[:PROBED]->(p:RippleProbe)
WHERE $event_id IS NULL OR p.event_id = $event_id
RETURN properties(p) AS probe
ORDER BY p.event_id, p.hop, p.probe
