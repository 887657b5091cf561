// Relation and attribute facts of the given entities (parents and their siblings), one batch.
// The class-membership fact ($parent_rel) is excluded: it is the class-level fact every
// artificial entity of C inherits. Only source-layer facts: generated and edited knowledge
// never feeds a new batch. Ordered by stable ids because the output feeds sampling.
UNWIND $ids AS sid
MATCH (s:Entity {id: sid})-[:HAS_FACT]->(f:Fact)
WHERE f.relation <> $parent_rel AND coalesce(f.layer, 'source') = 'source'
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN sid AS subject_id, f.id AS fact_id, f.kind AS kind, f.relation AS relation,
       coalesce(f.relation_label, f.relation) AS relation_label, f.value AS value,
       f.value_num AS value_num, f.unit AS unit, f.datatype AS datatype,
       o.id AS object_id, o.name AS object_name, coalesce(o.aliases, []) AS object_aliases
ORDER BY subject_id, fact_id
