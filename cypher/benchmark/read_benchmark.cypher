// One benchmark node's properties (provenance for export manifests), or no row.
MATCH (b:Benchmark {id: $id})
RETURN properties(b) AS benchmark
