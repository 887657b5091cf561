// kf_birthyear: people with a date of birth (the relation $relation, Wikidata's P569), with the
// date's text as the source gave it; one row per (person, fact), in a stable order for sampling
MATCH (e:Entity)-[:HAS_FACT]->(f:Fact {relation: $relation})
WHERE f.value IS NOT NULL AND e.name IS NOT NULL
RETURN e.id AS id, e.name AS name, f.id AS fact, f.value AS value
ORDER BY id, fact
