// Template predicate terms_within: the subject's history of relation $relation looks like
// terms of office: at least one fact with both a start and an end year, and no fact lasting
// more than $max_years (end_year - start_year). History: every fact, retracted ones included.
// $batch.rows: [{key, subject}]; one row back per input row.
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
RETURN row.key AS key,
  EXISTS {
    MATCH (:Entity {id: row.subject})-[:HAS_FACT]->(t:Fact {relation: $relation})
    WHERE t.start_year IS NOT NULL AND t.end_year IS NOT NULL
  }
  AND NOT EXISTS {
    MATCH (:Entity {id: row.subject})-[:HAS_FACT]->(t:Fact {relation: $relation})
    WHERE t.end_year - t.start_year > $max_years
  } AS holds
