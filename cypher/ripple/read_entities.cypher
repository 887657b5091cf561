// Names, aliases and popularity of entities by id. $ids: [id]
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id, e.name AS name, coalesce(e.aliases, []) AS aliases,
       coalesce(e.popularity, 0.0) AS popularity
ORDER BY id
