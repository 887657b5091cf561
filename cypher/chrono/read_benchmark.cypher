// One benchmark node's properties (null row when absent).
OPTIONAL MATCH (b:Benchmark {id: $id})
RETURN b { .* } AS benchmark
