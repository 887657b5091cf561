// knowforge view, ChroKnow: the records the timeline opens with (the views page's pick list),
// by id. At most $limit rows {key, label}.
MATCH (r:ChronoRecord)
RETURN r.id AS key, coalesce(r.subject, '') + ' · ' + coalesce(r.relation, '') AS label
ORDER BY key
LIMIT $limit
