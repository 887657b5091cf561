// Drop step 2 (repeated until nothing is deleted): eval runs of the benchmark left without
// answers (theirs went with the questions); runs that also answered other benchmarks stay.
MATCH (r:Run {benchmark: $benchmark})
WHERE NOT EXISTS { (r)-[:GAVE]->(:Answer) }
WITH r LIMIT $limit
DETACH DELETE r
