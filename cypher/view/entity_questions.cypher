// knowforge view: a page of the questions about an entity ($id).
MATCH (q:Question)-[:ABOUT]->(:Entity {id: $id})
RETURN q.id AS id, q.benchmark AS benchmark, q.task AS task, q.text AS question, q.answers AS gold
ORDER BY q.benchmark, q.id
SKIP $skip LIMIT $limit
