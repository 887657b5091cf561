// kf_birthyear: the probes of a benchmark ($benchmark): the person, the year and the question
MATCH (p:BirthYearProbe)-[:PROBES]->(q:Question)-[:IN_BENCHMARK]->(:Benchmark {id: $benchmark})
MATCH (p)-[:BORN_AS]->(e:Entity)
RETURN p.id AS id, e.id AS person, e.name AS name, p.year AS year, q.id AS question, q.text AS text
ORDER BY id
