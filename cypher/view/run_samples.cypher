// knowforge view: one page of a run's samples in answer-id order, filtered.
// $prefix: '<run id>:' (answer ids are '<run>:<question>:<sample>', so the answer-id index
// yields the run's answers in page order and the first page reads only its own rows; the
// GAVE check keeps any other run whose id merely starts the same way out);
// $filter (one map: each of its filters is a string or null, and Neo4j keys its plan cache on
// every parameter's type, so a parameter each made a plan per mix of set and unset filters):
// task: a task or null; slice: a Question property 'slice_<key>' or null, value: the text
// of its value; outcome: 'right' (score 1), 'wrong' (below 1) or null; failed: 'parse'
// (no error, nothing parsed), 'error' (the request failed) or null. $skip, $limit: the page.
MATCH (a:Answer)
WHERE a.id STARTS WITH $prefix
  AND ($filter.outcome IS NULL OR ($filter.outcome = 'right' AND a.score >= 1.0)
       OR ($filter.outcome = 'wrong' AND a.score < 1.0))
  AND ($filter.failed IS NULL OR ($filter.failed = 'error' AND a.error IS NOT NULL)
       OR ($filter.failed = 'parse' AND a.error IS NULL AND a.parsed IS NULL))
MATCH (a)-[:ANSWERS]->(q:Question)
WHERE ($filter.task IS NULL OR q.task = $filter.task)
  AND ($filter.slice IS NULL OR toString(q[$filter.slice]) = $filter.value)
  AND EXISTS { (:Run {id: $run_id})-[:GAVE]->(a) }
WITH a, q
ORDER BY a.id
SKIP $skip LIMIT $limit
RETURN a.id AS id, q.id AS question_id, a.sample_index AS sample_index, q.task AS task,
       left(q.text, 160) AS question, q.answers AS gold, left(a.raw, 120) AS raw, a.parsed AS parsed,
       a.score AS score, a.error IS NOT NULL AS failed
