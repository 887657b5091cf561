// Candidate fillers of a sampled event-template slot: every loaded entity (stubs excluded)
// carrying the slot's label. $labels: [] (any entity) or [label], allow-listed by
// kg/cypher.py validate_label. Sampling reads this list, so it ends with ORDER BY id.
MATCH (c:Entity&$($labels))
WHERE coalesce(c.stub, false) = false
RETURN c.id AS id, c.name AS name, coalesce(c.aliases, []) AS aliases,
       coalesce(c.popularity, 0.0) AS popularity
ORDER BY id
