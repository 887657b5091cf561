// The most recently applied event (highest seq), optionally within one batch.
MATCH (e:Event)
WHERE $batch IS NULL OR e.batch = $batch
RETURN e.id AS id, e.seq AS seq, e.type AS type, e.batch AS batch
ORDER BY e.seq DESC, e.id
LIMIT 1
