// The facts each listed question TESTS, with when they became true (start, point in time, first
// release): a run's cutoff slices (eval.validity.question_sides). By question id, from the
// samples the report holds, not through (:Run)-[:GAVE]->(:Answer): the eval builds its report
// while the run's answers are still being written, and such a read saw only those written yet.
// One record: rows, a list of [question_id, facts] (Store.read_collected sends $ids in chunks).
UNWIND $ids AS id
MATCH (q:Question {id: id})
CALL (q) {
  OPTIONAL MATCH (q)-[:TESTS]->(f:Fact)
  WITH f
  ORDER BY f.id
  RETURN collect(CASE WHEN f IS NULL THEN null ELSE {
           id: f.id, layer: f.layer, start: f.start, point_in_time: f.point_in_time,
           start_year: f.start_year, end_year: f.end_year,
           first_release: reduce(m = null, y IN coalesce(f.seen_in, []) |
                                 CASE WHEN m IS NULL OR y < m THEN y ELSE m END)} END) AS facts
}
RETURN collect([q.id, facts]) AS rows
