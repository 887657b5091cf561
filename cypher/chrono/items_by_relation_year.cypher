// Slice a ChroKnow benchmark: items per relation, year, temporal state and template.
// Paste into Neo4j Browser with :param benchmark => 'chrono:general'
MATCH (q:Question {benchmark: $benchmark, role: 'item'})
RETURN q.relation AS relation, q.year AS year, q.change AS change, q.template AS template,
       count(q) AS items
ORDER BY relation, year, change, template
