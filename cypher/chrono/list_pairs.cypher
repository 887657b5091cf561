// (subject, relation) pairs that a ChroKnow domain is built from, with the subject's name and
// domain labels (used to find "other subjects of the same type" for distractors).
// $filter: {relations, sources}, each a list or null (= any); one map, so a null and a list of
// any length share one plan.
MATCH (s:Entity)-[:HAS_FACT]->(f:Fact)
WHERE f.layer IN $layers
  AND ($filter.relations IS NULL OR f.relation IN $filter.relations)
  AND ($filter.sources IS NULL OR f.source IN $filter.sources)
WITH s, f.relation AS relation, min(f.relation_label) AS relation_label, count(f) AS n_facts
RETURN s.id AS subject_id, coalesce(s.name, s.id) AS subject,
       [l IN labels(s) WHERE l <> 'Entity' | l] AS labels, relation, relation_label, n_facts
ORDER BY subject_id, relation
