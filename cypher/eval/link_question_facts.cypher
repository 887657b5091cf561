// (:Question)-[:TESTS]->(:Fact), only for facts that exist in the graph.
UNWIND $rows AS row
MATCH (q:Question {id: row.question_id})
MATCH (f:Fact {id: row.fact_id})
MERGE (q)-[:TESTS]->(f)
