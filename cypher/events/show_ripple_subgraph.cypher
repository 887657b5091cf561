// Show a ripple analysis in Neo4j Browser: set the parameter first, e.g.
// :param fact_ids => ['f:...', 'f:...']
MATCH (s:Entity)-[h:HAS_FACT]->(f:Fact)
WHERE f.id IN $fact_ids
OPTIONAL MATCH p = (f)-[:OBJECT]->(o:Entity)
OPTIONAL MATCH q = (e:Event)-[:ASSERTS|RETRACTS]->(f)
RETURN s, h, f, p, q
