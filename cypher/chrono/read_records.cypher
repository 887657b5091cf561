// The records (ChroKnowBench lines) of one benchmark, as stored JSON, in id order.
MATCH (q:Question {benchmark: $benchmark, role: 'record'})
RETURN q.id AS id, q.record AS record
ORDER BY id
