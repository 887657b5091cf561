// Accuracy of a run per probe template and distribution (head vs long tail). Params: $run.
MATCH (:Run {id: $run})-[:GAVE]->(a:Answer {sample_index: 0})-[:ANSWERS]->(q:Question)
WHERE q.task = 'link/entailment'
RETURN q.slice_template AS template, q.slice_label AS label, q.slice_distribution AS distribution,
       avg(a.score) AS accuracy, count(*) AS answers
ORDER BY template, distribution
