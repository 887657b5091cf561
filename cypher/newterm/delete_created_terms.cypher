// Drop step 5: the meaning facts ($facts), Term entities ($terms) and, when $relation, the
// `meaning` relation that the benchmark's import added to the graph (what was there before
// is not listed), unless a question, term entry or fact of another benchmark still uses them.
CALL () {
  UNWIND $facts AS fact_id
  MATCH (f:Fact {id: fact_id})
  WHERE NOT EXISTS { (f)<-[:TESTS]-() }
  DETACH DELETE f
  RETURN count(*) AS facts
}
CALL () {
  UNWIND $terms AS term_id
  MATCH (t:Entity {id: term_id})
  WHERE NOT EXISTS { (t)<-[:OF_TERM]-() } AND NOT EXISTS { (t)-[:HAS_FACT]->() }
    AND NOT EXISTS { (t)<-[:OBJECT]-() }
  DETACH DELETE t
  RETURN count(*) AS terms
}
CALL () {
  MATCH (r:Relation {id: 'meaning'})
  WHERE $relation AND NOT EXISTS { MATCH (:Fact {relation: 'meaning'}) }
  DETACH DELETE r
  RETURN count(*) AS relations
}
RETURN facts + terms + relations AS deleted
