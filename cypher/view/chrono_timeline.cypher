// knowforge view, ChroKnow: a fact's timeline (one ChronoRecord: a subject and relation asked
// year by year). Each year is a node placed left to right, marked by how the model of run
// $run.id answered that year's questions (all right, partly, wrong, or not asked in that run;
// every year unasked when $run.id is null; the run is a map: one plan whether or not it is
// chosen); above it the year's gold objects, below it what the model said. $key: the record
// id; $limit: the most years. Nodes carry x/y for the preset layout.
// Returns the viewer's graph contract {nodes, edges}.
MATCH (r:ChronoRecord {id: $key})
CALL (r) {
  OPTIONAL MATCH (r)-[:TESTS]->(f:Fact)<-[:HAS_FACT]-(s:Entity)
  RETURN s, coalesce(f.relation_label, r.relation) AS relation ORDER BY s.id LIMIT 1
}
CALL (r) {
  MATCH (q:Question)-[:PART_OF]->(r)
  OPTIONAL MATCH (:Run {id: $run.id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q)
  WITH q.slice_year AS year, q, a
  ORDER BY q.id, a.sample_index
  WITH year,
       collect(DISTINCT CASE WHEN q.form = 'generation' THEN q.answers END) AS generation_golds,
       collect(DISTINCT q.answers) AS any_golds,
       count(a) AS answers, avg(a.score) AS score,
       collect(DISTINCT a.parsed) AS said
  ORDER BY year
  LIMIT $limit
  WITH year, answers, score, said,
       reduce(acc = [], g IN CASE WHEN size(generation_golds) > 0 THEN generation_golds ELSE any_golds END |
              acc + [x IN g WHERE NOT x IN acc]) AS golds
  ORDER BY year
  RETURN collect({year: year, answers: answers, score: score,
                  said: said[..3] + CASE WHEN size(said) > 3 THEN ['… and ' + toString(size(said) - 3) + ' more']
                                         ELSE [] END,
                  golds: golds[..4] + CASE WHEN size(golds) > 4 THEN ['… and ' + toString(size(golds) - 4) + ' more']
                                           ELSE [] END})
         AS years
}
WITH r, s, relation, years,
     reduce(low = 9999, y IN years | CASE WHEN y.year < low THEN y.year ELSE low END) AS first
WITH r, s, relation, first,
     [y IN years | y {.*, id: 'year:' + toString(y.year), x: 100 * (y.year - first),
                   kind: CASE WHEN y.answers = 0 THEN 'unasked' WHEN y.score >= 1.0 THEN 'right'
                              WHEN y.score > 0.0 THEN 'partial' ELSE 'wrong' END}] AS years
RETURN [{id: 'subject', label: coalesce(s.name, r.subject) + ' · ' + relation, kind: 'subject', entity: s.id,
         x: -140, y: 0, title: 'record ' + r.id}]
       + [y IN years | {id: y.id, label: toString(y.year), kind: y.kind, x: y.x, y: 0,
                        title: CASE WHEN y.answers = 0 THEN 'not asked'
                                    ELSE toString(y.answers) + ' answers, mean score ' + toString(round(y.score, 2)) END}]
       + reduce(acc = [], y IN years | acc + [i IN range(0, size(y.golds) - 1) |
           {id: y.id + ':gold:' + toString(i), label: y.golds[i], kind: 'gold', x: y.x, y: -70 - 40 * i}])
       + reduce(acc = [], y IN years | acc + [i IN range(0, size(y.said) - 1) |
           {id: y.id + ':said:' + toString(i), label: y.said[i], kind: 'said', x: y.x, y: 70 + 40 * i}]) AS nodes,
       [y IN years[..1] | {source: 'subject', target: y.id, label: '', kind: 'next'}]
       + [i IN range(0, size(years) - 2) | {source: years[i].id, target: years[i + 1].id, label: '', kind: 'next'}]
       + reduce(acc = [], y IN years | acc + [i IN range(0, size(y.golds) - 1) |
           {source: y.id, target: y.id + ':gold:' + toString(i), label: '', kind: 'gold'}])
       + reduce(acc = [], y IN years | acc + [i IN range(0, size(y.said) - 1) |
           {source: y.id, target: y.id + ':said:' + toString(i), label: '', kind: 'said'}]) AS edges
