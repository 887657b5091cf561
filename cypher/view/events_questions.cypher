// knowforge view, ELKEN: an event's questions ($key: the event id), a page at a time.
MATCH (q:Question)-[:TESTS]->(:Event {id: $key})
RETURN q.task AS task, q.slice_scope AS scope, q.text AS question, q.answers AS gold
ORDER BY q.id
SKIP $skip LIMIT $limit
