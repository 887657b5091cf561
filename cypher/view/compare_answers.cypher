// knowforge view: the questions $question_ids (a page of disagreements) with each run's first
// sample's parsed answer, for runs $run_ids.
MATCH (q:Question)
WHERE q.id IN $question_ids
CALL (q) {
  UNWIND $run_ids AS run_id
  OPTIONAL MATCH (:Run {id: run_id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q)
  WITH run_id, a ORDER BY a.sample_index
  WITH run_id, collect(a)[0] AS first
  RETURN collect({run_id: run_id, parsed: first.parsed}) AS answers
}
RETURN q.id AS question_id, q.text AS text, q.answers AS gold, answers
ORDER BY question_id
