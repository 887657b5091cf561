// Which of $relations the graph holds as source-layer facts (the check every grounding
// pattern passes before a search starts). One index seek per relation.
UNWIND $relations AS relation
RETURN relation, EXISTS {
  MATCH (f:Fact) WHERE f.relation = relation AND f.layer = 'source'
} AS present
ORDER BY relation
