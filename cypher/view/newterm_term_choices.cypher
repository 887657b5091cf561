// knowforge view, NewTerm: the term entries the view opens with (the views page's pick list), by
// id. At most $limit rows {key, label}.
MATCH (e:TermEntry)
RETURN e.id AS key, e.term + ' (' + coalesce(e.benchmark, '') + ')' AS label
ORDER BY key
LIMIT $limit
