// Drop step 2: eval runs of the benchmark left without answers (their answers went with the
// questions); runs that also answered other benchmarks keep their other answers.
MATCH (r:Run {benchmark: $benchmark})
WHERE NOT EXISTS { (r)-[:GAVE]->(:Answer) }
WITH r LIMIT $limit
DETACH DELETE r
RETURN count(*) AS deleted
