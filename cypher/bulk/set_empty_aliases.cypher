// After neo4j-admin import: every entity that the UNWIND writer would give an empty alias
// list gets one (the import tool cannot store an empty array, neo4j/neo4j#13566).
// Runs in an implicit transaction (CALL ... IN TRANSACTIONS).
MATCH (e:Entity) WHERE e.aliases IS NULL
CALL (e) { SET e.aliases = [] } IN TRANSACTIONS OF 10000 ROWS
