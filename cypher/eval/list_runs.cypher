// All runs, newest first.
MATCH (r:Run)
RETURN r.id AS id, r.model AS model, r.backend AS backend, r.benchmark AS benchmark,
       r.accuracy AS accuracy, r.started_at AS started_at
ORDER BY r.started_at DESC, r.id
