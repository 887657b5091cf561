// The properties of one run.
MATCH (r:Run {id: $run_id})
RETURN properties(r) AS run
