// Drop step 2: eval runs of the benchmark left without answers (theirs went with the questions).
MATCH (r:Run {benchmark: $benchmark})
WHERE NOT EXISTS { (r)-[:GAVE]->(:Answer) }
WITH r LIMIT $limit
DETACH DELETE r
