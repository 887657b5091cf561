// Every run of one control model (Run.control_model is set when the run is recorded).
MATCH (r:Run {control_model: $model_id})
RETURN properties(r) AS run
ORDER BY r.started_at, r.id
