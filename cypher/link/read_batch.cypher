// Whether a LINK benchmark has anything in the graph: its Benchmark node or inferred facts.
OPTIONAL MATCH (b:Benchmark {id: $benchmark})
RETURN b IS NOT NULL AS benchmark,
       COUNT { MATCH (f:Fact {batch: $batch}) WHERE f.layer = 'inferred' AND f.benchmark = $benchmark } AS facts,
       COUNT { MATCH (q:Question {benchmark: $benchmark}) } AS questions
