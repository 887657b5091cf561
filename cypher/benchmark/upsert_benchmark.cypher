// One benchmark of any method: (:Benchmark {id: '<method>:<name>', method, name, seed,
// params_json, source_hash, created_at, knowforge_version, ...}). Every question of it points
// here with IN_BENCHMARK; export manifests read their provenance from this node.
MERGE (b:Benchmark {id: $id})
SET b += $props
