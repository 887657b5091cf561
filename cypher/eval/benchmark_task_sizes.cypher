// How many questions each task of the given benchmarks has in the graph (a report compares
// them with the items a run evaluated, so a run narrowed by --limit or --task says so).
MATCH (q:Question)
WHERE q.benchmark IN $benchmarks
RETURN q.benchmark AS benchmark, q.task AS task, count(q) AS questions
ORDER BY benchmark, task
