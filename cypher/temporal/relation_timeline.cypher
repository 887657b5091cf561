// Every temporal fact of (subject, relation) overlapping [$from_year, $to_year].
// Python turns these into a year -> objects timeline (kg/temporal.py).
MATCH (f:Fact {subject_id: $subject_id, relation: $relation})
WHERE f.layer IN $layers AND f.temporal
  AND (f.start_year IS NULL OR f.start_year <= $to_year)
  AND (f.end_year IS NULL OR f.end_year >= $from_year)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN f.id AS fact_id, f.object_id AS object_id, coalesce(o.name, f.value) AS object,
       f.start_year AS start_year, f.end_year AS end_year, f.seen_in AS seen_in
ORDER BY fact_id
