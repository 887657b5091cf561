// Classes C and their members: a member is an entity with $member_label whose $parent_rel
// fact points at C (taxonomy: P171 parent taxon). Artificial entities are never members here,
// so earlier batches do not feed later ones. $class_keys: ids or names, or null for every class.
// Ordered by stable ids because the output feeds sampling.
MATCH (c:Entity)<-[:OBJECT]-(pf:Fact {relation: $parent_rel})<-[:HAS_FACT]-(m:Entity)
WHERE ($class_keys IS NULL OR c.id IN $class_keys OR c.name IN $class_keys)
  AND $member_label IN labels(m) AND NOT m:Artificial
  AND coalesce(pf.layer, 'source') = 'source'
WITH c, m, pf ORDER BY m.id
WITH c, collect({id: m.id, name: m.name, aliases: coalesce(m.aliases, []), rank: m.rank,
                 labels: labels(m), class_fact_id: pf.id}) AS members
WHERE size(members) >= $min_members
RETURN c.id AS class_id, c.name AS class_name, c.rank AS class_rank, members
ORDER BY class_id
