// (:TermEntry)-[:RELATED {rank, kind, origin, via, head, text, kept, position}]->(target):
// the target is the lemma for a term found in the lexical graph, else a (:Phrase) node shared
// by every entry that used the same text (an LLM's or a release's related term).
// $batch.rows: [{entry_id, rank, node_id (lemma id or null), phrase_id, text, props: {...}}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (e:TermEntry {id: row.entry_id})
CALL (row) {
  WITH row WHERE row.node_id IS NOT NULL
  MATCH (n:Entity {id: row.node_id})
  RETURN n
  UNION
  WITH row WHERE row.node_id IS NULL
  MERGE (n:Phrase {id: row.phrase_id})
  ON CREATE SET n.name = row.text
  RETURN n
}
MERGE (e)-[r:RELATED {rank: row.rank}]->(n)
SET r += row.props
