// Accuracy of a run grouped by any Question properties ($keys, e.g. ["slice_relation", "slice_year"]).
MATCH (:Run {id: $run_id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)
WITH [k IN $keys | q[k]] AS slice, a, q
RETURN slice, count(DISTINCT q) AS items, count(a) AS samples, sum(a.score) AS correct,
       avg(a.score) AS accuracy, sum(CASE WHEN a.error IS NULL THEN 0 ELSE 1 END) AS errors
ORDER BY samples DESC
