// knowforge view, ELKEN: the applied events the ripple view opens with (the views page's pick
// list), by id. At most $limit rows {key, label}.
MATCH (ev:Event)
RETURN ev.id AS key, coalesce(ev.type + ': ', '') + coalesce(ev.text, '') AS label
ORDER BY key
LIMIT $limit
