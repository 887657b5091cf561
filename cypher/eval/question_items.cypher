// The stored item (item_json) of each listed question that is in the graph, followed by the
// row eval/question_benchmarks gives for it (id, benchmark and the fields a run's report reads),
// so that a file benchmark's eval reads its questions once, not once here and again when it
// records its run (issue 33), and the report's fields are that statement's row as it is.
// One record: rows, a list of [item_json, id, benchmark, task, form, answers, metadata_json,
// slices] (one record, not one per question: see eval/question_benchmarks). Whether a
// benchmark is registered (has a (:Benchmark) node) is read once per benchmark by the caller,
// not once per question here (at 100,000 questions that look-up was a third of the server's
// CPU in this read).
UNWIND $ids AS id
MATCH (q:Question {id: id})
RETURN collect([q.item_json, q.id, q.benchmark, q.task, q.form, q.answers, q.metadata_json,
                [key IN keys(q) WHERE key STARTS WITH 'slice_' | [key, q[key]]]]) AS rows
