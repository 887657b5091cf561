// How much is in the database: nodes and relationships (the count store answers at once).
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
RETURN nodes, relationships
