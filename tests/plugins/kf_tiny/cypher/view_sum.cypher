// kf_tiny's view "sum": a sum ($key) and the question it adds up to; at most $limit edges
MATCH (s:TinySum {id: $key})-[:ADDS_UP]->(q:Question)
RETURN [{id: s.id, label: toString(s.a) + ' + ' + toString(s.b), kind: 'sum'},
        {id: q.id, label: q.text, kind: 'question'}] AS nodes,
       [{source: s.id, target: q.id, label: 'adds up to', kind: 'adds'}][..$limit] AS edges
