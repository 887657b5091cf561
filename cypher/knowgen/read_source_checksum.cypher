// A checksum input over the source graph: counts and the ids of every non-generated fact and
// entity. Used in export manifests ("hash of the source graph") and drop tests.
MATCH (f:Fact)
WHERE coalesce(f.layer, 'source') <> 'generated'
WITH f ORDER BY f.id
WITH collect(f.id + '|' + coalesce(f.relation, '') + '|' + coalesce(f.object_id, '') + '|' +
             coalesce(f.value, '') + '|' + coalesce(toString(f.value_num), '')) AS facts
RETURN facts, COLLECT { MATCH (e:Entity) WHERE NOT e:Artificial RETURN e.id ORDER BY e.id } AS entities
