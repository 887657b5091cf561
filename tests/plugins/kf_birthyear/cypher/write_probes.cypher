// kf_birthyear: one :BirthYearProbe per question ($batch.rows: {id, question, person, fact, year}),
// linked to the question it asks, the person it is about and the fact it was read from
UNWIND $batch.rows AS row
MATCH (q:Question {id: row.question})
MATCH (e:Entity {id: row.person})
MATCH (f:Fact {id: row.fact})
MERGE (p:BirthYearProbe {id: row.id})
SET p.year = row.year
MERGE (p)-[:PROBES]->(q)
MERGE (p)-[:BORN_AS]->(e)
MERGE (p)-[:READ_FROM]->(f)
