// knowforge view: the runs table, newest first, one page. $benchmark, $model: exact filters
// (null: any run); $skip, $limit: the page. n, mean and sd are the moments of the run's sample
// scores (sd: the sample standard deviation, n - 1 in the denominator) for the 95% interval.
MATCH (r:Run)
WHERE ($benchmark IS NULL OR r.benchmark = $benchmark) AND ($model IS NULL OR r.model = $model)
WITH r
ORDER BY r.started_at DESC, r.id
SKIP $skip LIMIT $limit
CALL (r) {
  MATCH (r)-[:GAVE]->(a:Answer)
  RETURN count(a) AS n, avg(a.score) AS mean, stDev(a.score) AS sd
}
RETURN r.id AS id, r.name AS name, r.model AS model, r.backend AS backend, r.benchmark AS benchmark,
       coalesce(r.solver, r.setting) AS solver, r.scoring AS scoring, r.items AS items,
       r.started_at AS started_at, r.errors AS errors, n, mean, sd
ORDER BY started_at DESC, id
