// knowforge view, ChroKnow: a record's questions year by year ($key) with what the model of run
// $run.id answered (null: no run chosen; the run is a map: one plan whether or not it is), a page at a time.
MATCH (q:Question)-[:PART_OF]->(:ChronoRecord {id: $key})
OPTIONAL MATCH (:Run {id: $run.id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q)
WITH q, a ORDER BY a.sample_index
WITH q, collect(a.parsed) AS said, avg(a.score) AS score, count(a) AS samples
RETURN q.slice_year AS year, q.slice_template AS template, q.text AS question, q.answers AS gold,
       said[..5] + CASE WHEN size(said) > 5 THEN ['… and ' + toString(size(said) - 5) + ' more'] ELSE [] END
         AS answers, samples, score
ORDER BY year, template, q.id
SKIP $skip LIMIT $limit
