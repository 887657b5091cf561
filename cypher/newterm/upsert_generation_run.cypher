// The run that made (or imported) a benchmark: model, backend, prompt version, similarity
// model, counts of every stage and filter decision.
MERGE (g:GenerationRun {id: $id})
SET g += $props
WITH g
MATCH (b:Benchmark {id: $benchmark})
MERGE (g)-[:IN_BENCHMARK]->(b)
