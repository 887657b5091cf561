// Remove a benchmark node once its questions are gone (a dropped batch).
MATCH (b:Benchmark {id: $id})
DETACH DELETE b
