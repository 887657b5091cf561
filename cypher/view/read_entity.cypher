// knowforge view: one entity ($id) with its labels, how many facts it has and how many point
// at it, and how many questions are about it.
MATCH (e:Entity {id: $id})
RETURN properties(e) AS entity, labels(e) AS labels,
       COUNT { (e)-[:HAS_FACT]->() } AS facts, COUNT { (e)<-[:OBJECT]-() } AS incoming,
       COUNT { (e)<-[:ABOUT]-() } AS questions
