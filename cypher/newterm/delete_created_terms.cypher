// Drop step 5: the meaning facts, Term entities and `meaning` relation that the benchmark's
// import added to the graph (listed on its Benchmark node; what was there before is not
// listed), unless a question, term entry or fact of another benchmark still uses them.
MATCH (b:Benchmark {id: $benchmark})
CALL (b) {
  UNWIND coalesce(b.created_facts, []) AS fact_id
  MATCH (f:Fact {id: fact_id})
  WHERE NOT EXISTS { (f)<-[:TESTS]-() }
  DETACH DELETE f
  RETURN count(*) AS facts
}
CALL (b) {
  UNWIND coalesce(b.created_terms, []) AS term_id
  MATCH (t:Entity {id: term_id})
  WHERE NOT EXISTS { (t)<-[:OF_TERM]-() } AND NOT EXISTS { (t)-[:HAS_FACT]->() }
    AND NOT EXISTS { (t)<-[:OBJECT]-() }
  DETACH DELETE t
  RETURN count(*) AS terms
}
CALL (b) {
  MATCH (r:Relation {id: 'meaning'})
  WHERE b.created_meaning_relation = true AND NOT EXISTS { MATCH (:Fact {relation: 'meaning'}) }
  DETACH DELETE r
  RETURN count(*) AS relations
}
RETURN facts + terms + relations AS deleted
