// Every relationship as (start id, type, end id, properties), in a stable order.
MATCH (a)-[r]->(b)
RETURN a.id AS start, type(r) AS type, b.id AS end, properties(r) AS props
ORDER BY start, type, end
