// Relationship count per type.
CALL db.relationshipTypes() YIELD relationshipType AS type
CALL (type) {
  MATCH ()-[r]->() WHERE type(r) = type
  RETURN count(r) AS relationships
}
RETURN type, relationships
ORDER BY type
