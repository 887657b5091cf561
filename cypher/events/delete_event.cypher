// Unstack one event: its edit facts, its questions, its RETRACTS and SLOT edges, the node.
// Source facts are never touched (they only lose the RETRACTS edge pointing at them).
MATCH (e:Event {id: $event_id})
CALL (e) {
  OPTIONAL MATCH (e)-[:ASSERTS]->(f:Fact {layer: 'edit'})
  DETACH DELETE f
}
CALL (e) {
  OPTIONAL MATCH (q:Question)-[:TESTS]->(e)
  DETACH DELETE q
}
DETACH DELETE e
