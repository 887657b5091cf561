// KnowGen: accuracy of every recorded run on a batch, by question type and difference
// (heredity / variation / dropout / extension), read from the answers in the graph.
// Parameter: $benchmark (e.g. 'knowgen:b1').
MATCH (r:Run)-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question {benchmark: $benchmark})
RETURN r.id AS run, r.solver AS solver, q.slice_type AS type, q.slice_difference AS difference,
       count(a) AS samples, avg(a.score) AS accuracy
ORDER BY run, type, difference
