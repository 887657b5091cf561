// The events a benchmark's questions test ((:Question)-[:TESTS]->(:Event)), for
// `knowforge results --events`: id, type, date, text, the entities in its slots and how many of
// the benchmark's questions test it, in stacking order. $benchmark: the benchmark's id.
MATCH (:Benchmark {id: $benchmark})<-[:IN_BENCHMARK]-(q:Question)-[:TESTS]->(e:Event)
WITH e, count(DISTINCT q) AS questions
RETURN e.id AS id, e.type AS type, e.date AS date, e.text AS text, questions,
       COLLECT { MATCH (e)-[s:SLOT]->(x:Entity) RETURN s.name + ': ' + coalesce(x.name, x.id) ORDER BY s.name }
         AS slots
ORDER BY e.seq, e.id
