// knowforge view: the other runs of a benchmark ($benchmark, not $run_id), newest first, at most
// $limit: the run page offers to compare with them.
MATCH (r:Run {benchmark: $benchmark})
WHERE r.id <> $run_id
RETURN r.id AS id, r.model AS model, coalesce(r.solver, r.setting) AS solver, r.started_at AS started_at
ORDER BY started_at DESC, id
LIMIT $limit
