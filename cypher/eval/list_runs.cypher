// All runs, newest first; $method / $benchmark (null: any) narrow them to one method's
// benchmarks ("knowgen:...") or to one benchmark.
MATCH (r:Run)
WHERE ($benchmark IS NULL OR r.benchmark = $benchmark)
  AND ($method IS NULL OR r.benchmark STARTS WITH $method + ':')
RETURN r.id AS id, r.benchmark AS benchmark, r.solver AS solver, r.scoring AS scoring, r.model AS model,
       r.backend AS backend, r.accuracy AS accuracy, r.limit AS `limit`, r.report_dir AS report_dir,
       r.started_at AS started_at
ORDER BY r.started_at DESC, r.id
