// Drop step 1 (repeated until nothing is deleted): up to $limit questions of a ChroKnow
// benchmark and the answers the eval engine attached to them.
MATCH (q:Question {benchmark: $benchmark})
WITH q LIMIT $limit
OPTIONAL MATCH (a:Answer)-[:ANSWERS]->(q)
WITH collect(DISTINCT q) + collect(DISTINCT a) AS nodes
UNWIND nodes AS n
DETACH DELETE n
