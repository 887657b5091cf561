// The keys a run's questions can be sliced by: the plain question keys ($plain: task, form, ...)
// and every slice_<key> property any of its questions has. results_by names them when a
// requested key is on none of the run's questions (a typo).
MATCH (:Run {id: $run_id})-[:GAVE]->(:Answer)-[:ANSWERS]->(q:Question)
WITH DISTINCT q
UNWIND keys(q) AS key
WITH DISTINCT key
WHERE key IN $plain OR key STARTS WITH 'slice_'
RETURN key
ORDER BY key
