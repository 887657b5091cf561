// Fill slices an item did not carry from the graph: relation of the tested facts, domain and
// popularity bucket (floor(log10(popularity + 1))) of the entities it is about.
// $batch.rows: [{id}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (q:Question {id: row.id})
OPTIONAL MATCH (q)-[:TESTS]->(f:Fact)
OPTIONAL MATCH (q)-[:ABOUT]->(e:Entity)
WITH q, min(f.relation) AS relation, min(e.domain) AS domain, max(e.popularity) AS popularity
SET q.slice_relation = coalesce(q.slice_relation, relation),
    q.slice_domain = coalesce(q.slice_domain, domain),
    q.slice_popularity_bucket = coalesce(q.slice_popularity_bucket,
        CASE WHEN popularity IS NULL THEN null ELSE toInteger(floor(log10(popularity + 1))) END)
