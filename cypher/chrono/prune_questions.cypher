// Remove the questions of a regenerated benchmark that the new build no longer has.
MATCH (q:Question {benchmark: $benchmark})
WHERE NOT q.id IN $keep
DETACH DELETE q
