// The Batch node of a KnowGen batch, if any (origin 'imported' for an ALCUNA release).
MATCH (b:Batch {id: $batch})
RETURN b.id AS id, b.method AS method, b.seed AS seed, b.params AS params,
       b.created_at AS created_at, b.source_hash AS source_hash, b.origin AS origin
