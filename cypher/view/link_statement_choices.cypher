// knowforge view, LINK: the inferred statements (conclusions) the view opens with (the views
// page's pick list), by id. At most $limit rows {key, label}.
MATCH (c:Fact {op: 'conclusion'})
WHERE c.layer = 'inferred'
RETURN c.id AS key, c.text AS label
ORDER BY key
LIMIT $limit
