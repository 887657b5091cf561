// knowforge view: the benchmarks and models that have runs (the runs page's filters).
MATCH (r:Run)
RETURN collect(DISTINCT r.benchmark) AS benchmarks, collect(DISTINCT r.model) AS models,
       count(r) AS runs
