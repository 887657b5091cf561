// The open-ended SOURCE facts of (subject, relation), optionally only the one pointing at
// object_id: what an ad-hoc ripple edit replaces.
MATCH (f:Fact {subject_id: $subject_id, relation: $relation})
WHERE f.end_year IS NULL AND coalesce(f.layer, 'source') <> 'edit'
  AND ($object_id IS NULL OR f.object_id = $object_id)
RETURN f.id AS fact_id
ORDER BY fact_id
