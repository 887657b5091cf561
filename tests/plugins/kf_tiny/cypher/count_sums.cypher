// kf_tiny: the sums of a benchmark ($benchmark), with their questions' ids
MATCH (s:TinySum)-[:ADDS_UP]->(q:Question)-[:IN_BENCHMARK]->(:Benchmark {id: $benchmark})
RETURN s.id AS id, s.a AS a, s.b AS b, q.id AS question
ORDER BY id
