// A run's ripple probes in the model, for the ELKEN validity table: per probe its event, hop
// distance, what the graph expects of it and whether the model's answer moved. $run_id.
MATCH (:Run {id: $run_id})-[:PROBED]->(p:RippleProbe)
RETURN p.event_id AS event_id, p.hop AS hop, p.expectation AS expectation, p.moved AS moved
ORDER BY event_id, hop, p.id
