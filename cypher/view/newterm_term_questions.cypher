// knowforge view, NewTerm: the questions made for a term entry ($key), a page at a time.
MATCH (q:Question)-[:FOR_ENTRY]->(:TermEntry {id: $key})
RETURN q.task AS task, q.text AS question, q.choices AS choices, q.answers AS gold
ORDER BY q.id
SKIP $skip LIMIT $limit
