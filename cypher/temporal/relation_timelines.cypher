// Temporal facts of many (subject, relation) pairs at once, for batch timeline building.
// $pairs: [{subject_id, relation}]
UNWIND $pairs AS pair
MATCH (f:Fact {subject_id: pair.subject_id, relation: pair.relation})
WHERE f.layer IN $layers AND f.temporal
  AND (f.start_year IS NULL OR f.start_year <= $to_year)
  AND (f.end_year IS NULL OR f.end_year >= $from_year)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN pair.subject_id AS subject_id, pair.relation AS relation, f.id AS fact_id,
       f.object_id AS object_id, coalesce(o.name, f.value) AS object,
       f.start_year AS start_year, f.end_year AS end_year, f.seen_in AS seen_in
ORDER BY subject_id, relation, fact_id
