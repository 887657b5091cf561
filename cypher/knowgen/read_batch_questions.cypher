// The batch's questions as stored BenchmarkItem JSON, in a stable order.
MATCH (q:Question {benchmark: $benchmark})
RETURN q.id AS id, q.item_json AS item_json
ORDER BY id
