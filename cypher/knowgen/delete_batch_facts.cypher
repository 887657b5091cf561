// Drop step 2 (repeated until nothing is deleted): up to $limit generated facts of the batch,
// with their DERIVED_FROM and OBJECT edges; the source facts and entities they point at stay.
MATCH (f:Fact {batch: $batch})
WHERE f.layer = 'generated'
WITH f LIMIT $limit
DETACH DELETE f
