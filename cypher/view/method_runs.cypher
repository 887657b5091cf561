// knowforge view: the runs of a method's benchmarks (benchmark ids "<method>:<name>"), newest
// first: the pick list of a view's run parameter. At most $limit rows {key, label}.
MATCH (r:Run)
WHERE r.benchmark STARTS WITH $prefix
RETURN r.id AS key, r.benchmark + ' · ' + coalesce(r.solver, r.setting, '') + ' · ' + coalesce(r.model, '') AS label
ORDER BY r.started_at DESC, key
LIMIT $limit
