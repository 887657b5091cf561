// The benchmark of each listed question that is in the graph (a run attaches answers only to
// questions of its own benchmark).
UNWIND $ids AS id
MATCH (q:Question {id: id})
RETURN q.id AS id, q.benchmark AS benchmark
