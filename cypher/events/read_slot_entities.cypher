// Candidate fillers of an event-template slot restricted to given ids (a derived slot, or a
// filler the user named): loaded entities (stubs excluded) with the slot's label. $ids: [id];
// $labels: [] or [label], allow-listed by kg/cypher.py validate_label. Sampling reads this
// list, so it ends with ORDER BY id.
MATCH (c:Entity&$($labels))
WHERE c.id IN $ids AND coalesce(c.stub, false) = false
RETURN c.id AS id, c.name AS name, coalesce(c.aliases, []) AS aliases,
       coalesce(c.popularity, 0.0) AS popularity
ORDER BY id
