// KnowGen: the artificial entities of a class, with their parent and operation counts.
// Parameters: $class (class id like 'ncbi:9836' or name like 'Camelus'), $batch (or null).
// Neo4j Browser: :param class => 'Camelus'; :param batch => null
MATCH (c:Entity)
WHERE c.id = $class OR c.name = $class
MATCH (e:Entity:Artificial {class_id: c.id})-[:DERIVED_FROM {op: 'parent'}]->(p:Entity)
WHERE $batch IS NULL OR e.batch = $batch
RETURN e.id AS id, e.name AS name, e.batch AS batch, p.name AS parent,
       COUNT { (e)-[:HAS_FACT]->(:Fact {op: 'heredity'}) } AS heredity,
       COUNT { (e)-[:HAS_FACT]->(:Fact {op: 'variation'}) } AS variation,
       COUNT { (e)-[:HAS_FACT]->(:Fact {op: 'extension'}) } AS extension,
       COUNT { (e)-[:DERIVED_FROM {op: 'dropout'}]->(:Fact) } AS dropout
ORDER BY id
