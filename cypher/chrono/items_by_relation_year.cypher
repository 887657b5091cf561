// Slice a ChroKnow benchmark: items per relation, year, temporal state and template.
// Paste into Neo4j Browser with :param benchmark => 'chrono:general'
MATCH (q:Question {benchmark: $benchmark})
RETURN q.slice_relation AS relation, q.slice_year AS year, q.slice_change AS change,
       q.slice_template AS template, count(q) AS items
ORDER BY relation, year, change, template
