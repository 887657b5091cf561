// Ids of every real (not artificial) entity, for the source-graph hash. Streamed in id order.
MATCH (e:Entity)
WHERE NOT e:Artificial
RETURN e.id AS id
ORDER BY id
