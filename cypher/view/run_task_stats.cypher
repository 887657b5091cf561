// knowforge view: a run's score moments per task (n, mean, sample sd for the 95% interval),
// with the questions asked, failed requests and answers no scorer could parse.
MATCH (:Run {id: $run_id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)
RETURN q.task AS task, count(DISTINCT q) AS items, count(a) AS n, avg(a.score) AS mean,
       stDev(a.score) AS sd, count(a.error) AS errors,
       sum(CASE WHEN a.error IS NULL AND a.parsed IS NULL THEN 1 ELSE 0 END) AS parse_failures
ORDER BY task
