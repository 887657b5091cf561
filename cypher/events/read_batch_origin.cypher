// How the events of one batch came to be: generated, or imported from a release (origin).
MATCH (e:Event)
WHERE e.batch = $batch
RETURN coalesce(e.origin, 'generated') AS origin, count(*) AS events
ORDER BY origin
