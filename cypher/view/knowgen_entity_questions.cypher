// knowforge view, KnowGen: the questions about an artificial entity ($key), a page at a time.
MATCH (q:Question)-[:ABOUT]->(:Entity:Artificial {id: $key})
RETURN q.task AS task, q.form AS form, q.slice_difference AS difference, q.text AS question,
       q.answers AS gold
ORDER BY q.id
SKIP $skip LIMIT $limit
