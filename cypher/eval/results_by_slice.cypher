// One row per question of a run, with the values of the Question properties $keys (e.g.
// ["slice_relation", "slice_year"]); results_by groups the rows by slice and by unit
// (item, or the method's item group read from metadata_json) for the intervals.
MATCH (:Run {id: $run_id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)
WITH q, [k IN $keys | q[k]] AS slice, count(a) AS samples, collect(a.score) AS scores,
     sum(CASE WHEN a.error IS NULL THEN 0 ELSE 1 END) AS errors
RETURN q.id AS id, q.metadata_json AS metadata_json, slice, samples, scores, errors
ORDER BY id
