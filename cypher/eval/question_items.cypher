// The stored item (item_json) and benchmark of each listed question that is in the graph, and
// whether that benchmark has a (:Benchmark) node (a generated or imported benchmark).
// One record: rows, a list of [id, benchmark, item_json, registered] (one record, not one per
// question: see eval/question_benchmarks).
UNWIND $ids AS id
MATCH (q:Question {id: id})
OPTIONAL MATCH (b:Benchmark {id: q.benchmark})
RETURN collect([q.id, q.benchmark, q.item_json, b IS NOT NULL]) AS rows
