// The per-year items of one benchmark, as stored JSON, in id order.
MATCH (q:Question {benchmark: $benchmark, role: 'item'})
RETURN q.id AS id, q.item AS item
ORDER BY id
