// knowforge view: a page of an entity's own facts ($id) with their objects, time and layer.
MATCH (:Entity {id: $id})-[:HAS_FACT]->(f:Fact)
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN f.id AS id, coalesce(f.relation_label, f.relation) AS relation, o.id AS object_id,
       coalesce(o.name, toString(f.value), f.text) AS object, f.unit AS unit, f.start AS start,
       f.end AS end, f.point_in_time AS point_in_time, coalesce(f.layer, 'source') AS layer, f.op AS op
ORDER BY relation, coalesce(f.start_year, 0), id
SKIP $skip LIMIT $limit
