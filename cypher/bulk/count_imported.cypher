// Counts to check an import against its manifest (each answered by the count store).
CALL () { MATCH (n:Entity) RETURN count(n) AS entities }
CALL () { MATCH (n:Fact) RETURN count(n) AS facts }
CALL () { MATCH (n:Relation) RETURN count(n) AS relations }
CALL () { MATCH ()-[r:HAS_FACT]->() RETURN count(r) AS has_fact }
CALL () { MATCH ()-[r:OBJECT]->() RETURN count(r) AS object }
RETURN entities, facts, relations, has_fact, object
