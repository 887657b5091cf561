// Every entity name and alias in the graph, for the fuzzy name-collision check. The output is
// a set (order does not change any choice), so it is streamed without ORDER BY.
MATCH (e:Entity)
RETURN e.name AS name, coalesce(e.aliases, []) AS aliases
