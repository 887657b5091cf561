// The events of one batch in stacking order, with their slots and their payload JSON (and,
// for an imported release, the event's keys beyond ELKEN's schema as released).
MATCH (e:Event)
WHERE e.batch = $batch
RETURN e.id AS id, e.seq AS seq, e.type AS type, e.text AS text, e.date AS date,
       e.payload AS payload, e.release_extra_json AS release_extra_json,
       COLLECT { MATCH (e)-[s:SLOT]->(x:Entity) RETURN {name: s.name, id: x.id, entity: x.name} ORDER BY s.name } AS slots
ORDER BY seq, id
