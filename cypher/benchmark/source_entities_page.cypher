// One page of the source-graph hash's entities: the next $page entities by id after $after,
// walked in the order of the entity_id index, as one record; `ids` holds the real (not
// artificial) ones, as read_source_entities does.
MATCH (e:Entity)
WHERE e.id > $after
WITH e ORDER BY e.id LIMIT $page
RETURN count(e) AS n, max(e.id) AS last, collect(CASE WHEN NOT e:Artificial THEN e.id END) AS ids
