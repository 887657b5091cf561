// Drop step 3 (repeated until nothing is deleted): up to $limit records of the benchmark; the
// source facts they point at stay.
MATCH (r:ChronoRecord {benchmark: $benchmark})
WITH r LIMIT $limit
DETACH DELETE r
