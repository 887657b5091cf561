// The stored item (item_json) and benchmark of each listed question that is in the graph, and
// whether that benchmark has a (:Benchmark) node (a generated or imported benchmark).
UNWIND $ids AS id
MATCH (q:Question {id: id})
OPTIONAL MATCH (b:Benchmark {id: q.benchmark})
RETURN q.id AS id, q.benchmark AS benchmark, q.item_json AS item_json, b IS NOT NULL AS registered
