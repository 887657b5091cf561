// The Batch node of an imported ALCUNA release (origin 'imported'); a generated batch is
// created by knowgen/create_batch, which refuses an existing id.
MERGE (b:Batch {id: $batch})
SET b += $props
