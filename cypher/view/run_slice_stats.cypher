// knowforge view: a run's score moments per value of every slice (Question properties
// slice_<key>), the report's slice tables straight from the graph.
MATCH (:Run {id: $run_id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)
UNWIND [k IN keys(q) WHERE k STARTS WITH 'slice_'] AS key
WITH key, q[key] AS value, a
RETURN substring(key, 6) AS slice, value, count(a) AS n, avg(a.score) AS mean,
       stDev(a.score) AS sd, count(a.error) AS errors
ORDER BY slice, value
