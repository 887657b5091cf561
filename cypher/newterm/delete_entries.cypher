// Drop step 3 (repeated): up to $limit of the benchmark's term entries, release records and
// generation runs (with their RELATED edges; lemmas and terms stay, they are source data).
MATCH (:Benchmark {id: $benchmark})<-[:IN_BENCHMARK]-(n)
WHERE n:TermEntry OR n:ReleaseRecord OR n:GenerationRun
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
