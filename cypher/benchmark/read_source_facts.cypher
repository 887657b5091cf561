// The source layer's facts (never generated, edited or inferred ones), for the source-graph
// hash in benchmark provenance and export manifests. Streamed in id order.
MATCH (f:Fact)
WHERE coalesce(f.layer, 'source') = 'source'
RETURN f.id AS id, coalesce(f.relation, '') AS relation, f.object_id AS object_id,
       f.value AS value, f.value_num AS value_num
ORDER BY id
