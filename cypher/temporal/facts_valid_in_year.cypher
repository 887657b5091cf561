// Facts of one entity that hold in $year (inclusive year granularity).
// Facts without any time information are included only when $include_timeless is true.
MATCH (f:Fact {subject_id: $subject_id})
WHERE f.layer IN $layers
  AND (f.temporal OR $include_timeless)
  AND (f.start_year IS NULL OR f.start_year <= $year)
  AND (f.end_year IS NULL OR f.end_year >= $year)
  AND (f.seen_in IS NULL OR $year IN f.seen_in)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN f.id AS fact_id, f.relation AS relation, f.kind AS kind, f.object_id AS object_id,
       o.name AS object_name, f.value AS value, f.unit AS unit,
       f.start_year AS start_year, f.end_year AS end_year
ORDER BY relation, fact_id
