// knowforge view: the slice keys of a run's questions (the samples page's filter), read from
// its first $limit answers in id order, so a 100k-sample run costs a few hundred rows.
MATCH (a:Answer)
WHERE a.id STARTS WITH $run_id + ':'
WITH a
ORDER BY a.id
LIMIT $limit
MATCH (:Run {id: $run_id})-[:GAVE]->(a)-[:ANSWERS]->(q:Question)
RETURN [k IN keys(q) WHERE k STARTS WITH 'slice_' | substring(k, 6)] AS keys
