// One event by id, with its payload JSON.
MATCH (e:Event {id: $event_id})
RETURN e.id AS id, e.seq AS seq, e.type AS type, e.text AS text, e.date AS date,
       e.batch AS batch, e.payload AS payload
