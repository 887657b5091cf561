// Every fact of many (subject, relation) pairs, temporal or not, with its object's name (or
// literal value). $pairs: [{subject_id, relation}]
UNWIND $pairs AS pair
MATCH (f:Fact {subject_id: pair.subject_id, relation: pair.relation})
WHERE f.layer IN $layers
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN pair.subject_id AS subject_id, pair.relation AS relation, f.id AS fact_id,
       coalesce(o.name, f.value) AS object, f.object_id AS object_id, f.seen_in AS seen_in,
       f.start_year AS start_year, f.end_year AS end_year
ORDER BY subject_id, relation, fact_id
