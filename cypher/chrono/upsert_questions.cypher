// ChroKnow questions: records (role 'record') and per-year items (role 'item').
// $rows: [{id, benchmark, part_of?, fact_ids:[..], props:{...}}]
// Each question joins its benchmark, an item joins its record (PART_OF), and both point at the
// facts they test (TESTS), so results slice by relation and year in plain Cypher.
UNWIND $rows AS row
MERGE (q:Question {id: row.id})
SET q += row.props, q.benchmark = row.benchmark
WITH q, row
MATCH (b:Benchmark {id: row.benchmark})
MERGE (q)-[:IN_BENCHMARK]->(b)
WITH q, row
CALL (q, row) {
  WITH q, row WHERE row.part_of IS NOT NULL
  MATCH (r:Question {id: row.part_of})
  MERGE (q)-[:PART_OF]->(r)
}
CALL (q, row) {
  UNWIND row.fact_ids AS fact_id
  MATCH (f:Fact {id: fact_id})
  MERGE (q)-[:TESTS]->(f)
}
RETURN count(q) AS questions
