// Drop step 3 (repeated until nothing is deleted): up to $limit inferred facts of the batch
// (conclusions, assumed and proposed premises) with their DERIVED_FROM and OBJECT edges.
// Source facts and entities they pointed at stay as they were.
MATCH (f:Fact {batch: $batch})
WHERE f.layer = 'inferred' AND f.benchmark = $benchmark
WITH f LIMIT $limit
DETACH DELETE f
