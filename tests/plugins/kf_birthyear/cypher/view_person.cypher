// kf_birthyear's view "person": a person ($key), the birth date fact the questions were read
// from and the questions asked about it; at most $limit edges
MATCH (e:Entity {id: $key})<-[:BORN_AS]-(p:BirthYearProbe)-[:PROBES]->(q:Question)
MATCH (p)-[:READ_FROM]->(f:Fact)
WITH e, f, collect(DISTINCT q) AS questions
RETURN [{id: e.id, label: e.name, kind: 'person', entity: e.id},
        {id: f.id, label: 'born ' + f.value, kind: 'fact'}]
       + [q IN questions | {id: q.id, label: q.text, kind: 'question'}] AS nodes,
       ([{source: e.id, target: f.id, label: 'date of birth', kind: 'born'}]
        + [q IN questions | {source: q.id, target: f.id, label: 'asks', kind: 'asks'}])[..$limit] AS edges
