// One page of the source-graph hash's facts: the next $page facts by id after $after, walked
// in the order of the fact_id index (no sort of the whole layer), as one record. `n` and `last`
// count and end the page over every fact; `rows` holds the source layer's (never generated,
// edited or inferred ones), in the same order and with the same values as read_source_facts.
MATCH (f:Fact)
WHERE f.id > $after
WITH f ORDER BY f.id LIMIT $page
RETURN count(f) AS n, max(f.id) AS last,
       collect(CASE WHEN coalesce(f.layer, 'source') = 'source'
                    THEN [f.id, coalesce(f.relation, ''), f.object_id, f.value, f.value_num] END) AS rows
