// knowforge view: the moments of each run's sample scores ($run_ids): n, mean and the sample
// standard deviation (n - 1 in the denominator), for the 95% interval of its accuracy.
UNWIND $run_ids AS run_id
MATCH (r:Run {id: run_id})
CALL (r) {
  MATCH (r)-[:GAVE]->(a:Answer)
  RETURN count(a) AS n, avg(a.score) AS mean, stDev(a.score) AS sd
}
RETURN r.id AS id, n, mean, sd
