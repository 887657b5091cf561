// The facts each question of a run TESTS, with whether $model_id was TRAINED_ON them and when
// they became true (start, point in time, first release). $model_id may be null.
MATCH (:Run {id: $run_id})-[:GAVE]->(:Answer)-[:ANSWERS]->(q:Question)
WITH DISTINCT q
OPTIONAL MATCH (q)-[:TESTS]->(f:Fact)
OPTIONAL MATCH (:Model {id: $model_id})-[t:TRAINED_ON]->(f)
WITH q, f, t
ORDER BY f.id
WITH q, collect(CASE WHEN f IS NULL THEN null ELSE {
       id: f.id, layer: f.layer, trained: t IS NOT NULL, start: f.start,
       point_in_time: f.point_in_time, start_year: f.start_year, end_year: f.end_year,
       first_release: reduce(m = null, y IN coalesce(f.seen_in, []) |
                             CASE WHEN m IS NULL OR y < m THEN y ELSE m END)} END) AS facts
RETURN q.id AS question_id, facts
ORDER BY question_id
