// Drop step 1b: eval Runs of this batch's benchmark left without answers (their answers went
// with the questions). Runs that also answered other benchmarks keep their other answers.
MATCH (r:Run {benchmark: $benchmark})
WHERE NOT EXISTS { (r)-[:GAVE]->(:Answer) }
WITH r LIMIT $limit
DETACH DELETE r
