// One (:TermEntry) per (benchmark, term, meaning): the term as this benchmark took it, with
// its selection signals (zipf, frequency bucket, guess, similarity, novelty, rank).
// $batch.rows: [{id, benchmark, term_id, props: {...}}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:TermEntry {id: row.id})
SET e += row.props, e.benchmark = row.benchmark
WITH e, row
MATCH (b:Benchmark {id: row.benchmark})
MERGE (e)-[:IN_BENCHMARK]->(b)
WITH e, row
OPTIONAL MATCH (t:Entity {id: row.term_id})
FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | MERGE (e)-[:OF_TERM]->(t))
