// The items of one benchmark as stored BenchmarkItem JSON, in id order.
MATCH (q:Question {benchmark: $benchmark})
WHERE q.item_json IS NOT NULL
RETURN q.item_json AS item_json
ORDER BY q.id
