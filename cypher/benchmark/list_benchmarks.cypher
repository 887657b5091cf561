// Every benchmark in the graph with its question count, for `knowforge methods --benchmarks`.
MATCH (b:Benchmark)
RETURN b.id AS id, b.method AS method, b.name AS name, b.created_at AS created_at,
       COUNT { (q:Question)-[:IN_BENCHMARK]->(b) } AS questions
ORDER BY id
