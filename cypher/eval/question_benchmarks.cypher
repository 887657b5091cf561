// The benchmark of each listed question that is in the graph (a run attaches answers only to
// questions of its own benchmark), with the properties a run's report reads of it (task, form,
// gold answers, metadata, slices: a slice the item did not carry may have been derived from
// the graph when the question was written), so the eval's report is built from the answers in
// memory and this one read instead of reading every answer back.
// One record: rows, a list of [id, benchmark, task, form, answers, metadata_json, slices] (slices:
// [[property, value], ...] of the question's slice_<key> properties). One record, not one per
// question: the driver's decoding of each record was most of the client's cost of this read
// (benchmarks/question_reads.py); Store.read_collected sends the ids in chunks.
UNWIND $ids AS id
MATCH (q:Question {id: id})
RETURN collect([q.id, q.benchmark, q.task, q.form, q.answers, q.metadata_json,
                [key IN keys(q) WHERE key STARTS WITH 'slice_' | [key, q[key]]]]) AS rows
