// knowforge view: the runs table, newest first, one page. $benchmark, $model: exact filters
// (null: any run); $skip, $limit: the page. answers is a degree count (cheap however large the
// run); the scores' moments come from view/run_moments, for the runs whose are not at hand.
MATCH (r:Run)
WHERE ($benchmark IS NULL OR r.benchmark = $benchmark) AND ($model IS NULL OR r.model = $model)
RETURN r.id AS id, r.name AS name, r.model AS model, r.backend AS backend, r.benchmark AS benchmark,
       coalesce(r.solver, r.setting) AS solver, r.scoring AS scoring, r.items AS items,
       r.started_at AS started_at, r.finished_at AS finished_at, r.errors AS errors,
       r.cluster_key AS cluster_key, r.n AS n,
       COUNT { (r)-[:GAVE]->() } AS answers
ORDER BY started_at DESC, id
SKIP $skip LIMIT $limit
