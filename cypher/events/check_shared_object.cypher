// Template predicate shares_object: does the subject have a fact of relation $first and a fact
// of relation $second with the same object (e.g. B's head-of-state office is its
// head-of-government office)? $current: both open-ended; $include_retracted: also facts an
// applied event retracted. $batch.rows: [{key, subject}]; one row back per input row.
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.rows AS row
RETURN row.key AS key, EXISTS {
  MATCH (s:Entity {id: row.subject})-[:HAS_FACT]->(a:Fact {relation: $first})-[:OBJECT]->(:Entity)
        <-[:OBJECT]-(b:Fact {relation: $second})<-[:HAS_FACT]-(s)
  WHERE (NOT $current OR (a.end_year IS NULL AND b.end_year IS NULL))
    AND ($include_retracted OR (NOT EXISTS { (a)<-[:RETRACTS]-(:Event) }
                                AND NOT EXISTS { (b)<-[:RETRACTS]-(:Event) }))
} AS holds
