// The statements of a benchmark: each conclusion fact's LINT records (one per distribution it
// is in), in id order.
MATCH (f:Fact {batch: $batch})
WHERE f.layer = 'inferred' AND f.op = 'conclusion' AND f.benchmark = $benchmark
RETURN f.id AS id, f.statements_json AS statements_json
ORDER BY id
