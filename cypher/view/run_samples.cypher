// knowforge view: one page of a run's samples in answer-id order, filtered.
// $prefix: '<run id>:' (answer ids are '<run>:<question>:<sample>', so the answer-id index
// yields the run's answers in page order and the first page reads only its own rows; the
// GAVE check keeps any other run whose id merely starts the same way out);
// $task: a task or null; $slice: a Question property 'slice_<key>' or null, $value: the text
// of its value; $outcome: 'right' (score 1), 'wrong' (below 1) or null; $failed: 'parse'
// (no error, nothing parsed), 'error' (the request failed) or null; $skip, $limit: the page.
MATCH (a:Answer)
WHERE a.id STARTS WITH $prefix
  AND ($outcome IS NULL OR ($outcome = 'right' AND a.score >= 1.0) OR ($outcome = 'wrong' AND a.score < 1.0))
  AND ($failed IS NULL OR ($failed = 'error' AND a.error IS NOT NULL)
       OR ($failed = 'parse' AND a.error IS NULL AND a.parsed IS NULL))
MATCH (a)-[:ANSWERS]->(q:Question)
WHERE ($task IS NULL OR q.task = $task)
  AND ($slice IS NULL OR toString(q[$slice]) = $value)
  AND EXISTS { (:Run {id: $run_id})-[:GAVE]->(a) }
WITH a, q
ORDER BY a.id
SKIP $skip LIMIT $limit
RETURN a.id AS id, q.id AS question_id, a.sample_index AS sample_index, q.task AS task,
       left(q.text, 160) AS question, q.answers AS gold, left(a.raw, 120) AS raw, a.parsed AS parsed,
       a.score AS score, a.error IS NOT NULL AS failed
