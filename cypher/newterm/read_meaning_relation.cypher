// Whether the `meaning` relation is already in the graph (1) or not (0).
OPTIONAL MATCH (r:Relation {id: 'meaning'})
RETURN count(r) AS present
