// The stored item (item_json) and benchmark of each listed question that is in the graph,
// whether that benchmark has a (:Benchmark) node (a generated or imported benchmark), and the
// fields a run's report reads of the question (those of eval/question_benchmarks), so that a
// file benchmark's eval reads its questions once, not once here and again when it records
// its run (issue 33).
// One record: rows, a list of [id, benchmark, item_json, registered, task, form, answers,
// metadata_json, slices] (one record, not one per question: see eval/question_benchmarks).
UNWIND $ids AS id
MATCH (q:Question {id: id})
OPTIONAL MATCH (b:Benchmark {id: q.benchmark})
RETURN collect([q.id, q.benchmark, q.item_json, b IS NOT NULL, q.task, q.form, q.answers, q.metadata_json,
                [key IN keys(q) WHERE key STARTS WITH 'slice_' | [key, q[key]]]]) AS rows
