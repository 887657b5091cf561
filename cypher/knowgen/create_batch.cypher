// The Batch node that owns every node a KnowGen run writes (the unique constraint on Batch.id
// refuses a second batch with the same id).
CREATE (b:Batch {id: $batch, method: 'knowgen', seed: $seed, params: $params,
                 created_at: $created_at, source_hash: $source_hash})
