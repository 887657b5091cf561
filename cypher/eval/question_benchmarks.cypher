// The benchmark of each listed question that is in the graph (a run attaches answers only to
// questions of its own benchmark), with the properties a run's report reads of it (task, form,
// gold answers, metadata, slices: a slice the item did not carry may have been derived from
// the graph when the question was written), so the eval's report is built from the answers in
// memory and this one read instead of reading every answer back.
// slices: [[property, value], ...] of the question's slice_<key> properties.
UNWIND $ids AS id
MATCH (q:Question {id: id})
RETURN q.id AS id, q.benchmark AS benchmark, q.task AS task, q.form AS form, q.answers AS answers,
       q.metadata_json AS metadata_json,
       [key IN keys(q) WHERE key STARTS WITH 'slice_' | [key, q[key]]] AS slices
