// kf_tiny: one :TinySum per sum question ($rows: {id, question, a, b}), linked to its question
UNWIND $rows AS row
MATCH (q:Question {id: row.question})
MERGE (s:TinySum {id: row.id})
SET s.a = row.a, s.b = row.b
MERGE (s)-[:ADDS_UP]->(q)
