// Template predicates has_fact / lacks_fact: does the subject have a fact whose relation is
// in $relations (pointing at the object, when the row names one)? $current: only open-ended
// facts (no end year); $include_retracted: also facts an applied event retracted. Edit-layer
// facts count (events attach them with HAS_FACT).
// $batch.rows: [{key, subject, object|null}]; one row back per input row.
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
RETURN row.key AS key, EXISTS {
  MATCH (:Entity {id: row.subject})-[:HAS_FACT]->(f:Fact)
  WHERE f.relation IN $relations
    AND (row.object IS NULL OR EXISTS { (f)-[:OBJECT]->(:Entity {id: row.object}) })
    AND (NOT $current OR f.end_year IS NULL)
    AND ($include_retracted OR NOT EXISTS { (f)<-[:RETRACTS]-(:Event) })
} AS holds
