// (meaning fact)-[:HEAD_WORD {position, word}]->(:Lemma), replacing a meaning's old links.
// $batch.rows: [{fact_id, heads: [{lemma_id, word, position}]}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (m:Fact {id: row.fact_id})
CALL (m, row) {
  MATCH (m)-[old:HEAD_WORD]->(l)
  WHERE NOT l.id IN [h IN row.heads | h.lemma_id]
  DELETE old
}
WITH m, row
UNWIND row.heads AS head
MATCH (l:Entity {id: head.lemma_id})
MERGE (m)-[h:HEAD_WORD]->(l)
SET h.position = head.position, h.word = head.word
