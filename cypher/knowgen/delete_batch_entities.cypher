// Drop step 3 (repeated until nothing is deleted): up to $limit artificial entities of the
// batch, then (when none is left) the Batch node itself.
CALL () {
  MATCH (e:Entity:Artificial {batch: $batch})
  WITH e LIMIT $limit
  DETACH DELETE e
  RETURN count(*) AS deleted
}
WITH deleted
OPTIONAL MATCH (b:Batch {id: $batch})
WHERE deleted = 0
DETACH DELETE b
