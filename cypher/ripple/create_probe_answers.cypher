// A run's ripple probe answers (knowforge.eval.events.ripple_probe): one node per probe,
// (:Run)-[:PROBED]->(:RippleProbe {id, event_id, probe, fact_id, hop, relation, question,
// expectation, category, walk, answer_before, answer_after, moved, outcome, ...}), and
// (:RippleProbe)-[:PROBES]->(:Fact) when the probed fact is in the graph.
// $run_id; $batch.rows: [{id, fact_id, props}]
// In one map: one plan whatever the batch's size (see Store.write).
MATCH (r:Run {id: $run_id})
UNWIND $batch.rows AS row
MERGE (p:RippleProbe {id: row.id})
SET p += row.props
MERGE (r)-[:PROBED]->(p)
WITH p, row
OPTIONAL MATCH (f:Fact {id: row.fact_id})
FOREACH (_ IN CASE WHEN f IS NULL THEN [] ELSE [1] END | MERGE (p)-[:PROBES]->(f))
