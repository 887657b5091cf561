// Questions of a batch, linked to the facts they test and the entities they are about.
// MERGE by id: the eval engine MERGEs the same Question ids (BenchmarkItem.id). The links are
// CREATEd: a batch's questions are new (the batch id is refused when it exists), and a
// retried transaction is rolled back as a whole first.
// $rows: [{id, props:{benchmark, batch, type, form, difference, hop_count, question, answers,
//          item_json, ...}, fact_ids:[...], entity_ids:[...]}]
UNWIND $rows AS row
MERGE (q:Question {id: row.id})
SET q += row.props
WITH q, row
CALL (q, row) {
  UNWIND row.fact_ids AS fid
  MATCH (f:Fact {id: fid})
  CREATE (q)-[:TESTS]->(f)
}
CALL (q, row) {
  UNWIND row.entity_ids AS eid
  MATCH (e:Entity {id: eid})
  CREATE (q)-[:ABOUT]->(e)
}
