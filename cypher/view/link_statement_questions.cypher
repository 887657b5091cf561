// knowforge view, LINK: the probe questions of a statement ($key: its conclusion fact), template
// by template, a page at a time.
MATCH (q:Question)-[:TESTS]->(:Fact {id: $key})
RETURN q.slice_template AS template, q.slice_distribution AS distribution, q.text AS question,
       q.answers AS gold
ORDER BY q.slice_template, q.id
SKIP $skip LIMIT $limit
