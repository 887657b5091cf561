// knowforge view: each run's mean score per question, for runs $run_ids of one benchmark.
UNWIND $run_ids AS run_id
MATCH (:Run {id: run_id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)
RETURN q.id AS question_id, q.task AS task, run_id, avg(a.score) AS score
ORDER BY question_id, run_id
