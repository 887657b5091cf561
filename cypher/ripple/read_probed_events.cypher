// The events a run recorded ripple probe answers for, with how many probes each. $run_id.
MATCH (:Run {id: $run_id})-[:PROBED]->(p:RippleProbe)
RETURN p.event_id AS event_id, count(p) AS probes
ORDER BY event_id
