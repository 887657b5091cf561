// A question's NewTerm links: the term entry it was made for, the run that made it (with the
// filter's verdict on the edge: letters picked, CSJ rating, perplexity), and the related terms
// its distractors came from, with their position among the choices.
// $batch.rows: [{question_id, entry_id, run_id, verdict: {...}, distractors: [{rank, position}]}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (q:Question {id: row.question_id})
CALL (q, row) {
  MATCH (e:TermEntry {id: row.entry_id})
  MERGE (q)-[:FOR_ENTRY]->(e)
}
CALL (q, row) {
  MATCH (g:GenerationRun {id: row.run_id})
  MERGE (q)-[m:MADE_BY]->(g)
  SET m += row.verdict
}
CALL (q, row) {
  UNWIND row.distractors AS d
  MATCH (:TermEntry {id: row.entry_id})-[r:RELATED {rank: d.rank}]->(n)
  MERGE (q)-[x:DISTRACTOR {position: d.position}]->(n)
  SET x.kind = r.kind, x.origin = r.origin, x.via = r.via, x.text = r.text
}
