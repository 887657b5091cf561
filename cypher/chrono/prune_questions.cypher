// Remove the questions and records of a regenerated benchmark that the new build no longer has.
CALL () {
  MATCH (q:Question {benchmark: $benchmark})
  WHERE NOT q.id IN $keep
  DETACH DELETE q
}
CALL () {
  MATCH (r:ChronoRecord {benchmark: $benchmark})
  WHERE NOT r.id IN $keep
  DETACH DELETE r
}
