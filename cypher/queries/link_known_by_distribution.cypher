// LINT's main number from the graph: per distribution, the statements a run answered on all 13
// templates and how many it got all right ("known"). Params: $run (a run id).
MATCH (:Run {id: $run})-[:GAVE]->(a:Answer {sample_index: 0})-[:ANSWERS]->(q:Question)-[:TESTS]->(c:Fact {op: 'conclusion'})
WITH c, q.slice_distribution AS distribution, count(q) AS asked, sum(a.score) AS right
WHERE asked = 13
RETURN distribution, count(*) AS statements, sum(CASE WHEN right = 13 THEN 1 ELSE 0 END) AS known,
       toFloat(sum(CASE WHEN right = 13 THEN 1 ELSE 0 END)) / count(*) AS known_rate
ORDER BY distribution
