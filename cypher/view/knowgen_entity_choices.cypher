// knowforge view, KnowGen: the artificial entities the view opens with (the views page's pick
// list), by id. At most $limit rows {key, label}.
MATCH (e:Entity:Artificial)
RETURN e.id AS key, e.name AS label
ORDER BY key
LIMIT $limit
