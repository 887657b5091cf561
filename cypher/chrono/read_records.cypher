// The records (ChroKnowBench lines) of one benchmark, as stored JSON, in id order.
MATCH (r:ChronoRecord {benchmark: $benchmark})
RETURN r.id AS id, r.record_json AS record
ORDER BY id
