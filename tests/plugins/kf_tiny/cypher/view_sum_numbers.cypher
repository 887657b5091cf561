// kf_tiny's view "sum": its numbers ($key), a page ($skip, $limit)
MATCH (s:TinySum {id: $key})
RETURN s.a AS a, s.b AS b, s.a + s.b AS total
SKIP $skip
LIMIT $limit
