// Node count per label.
CALL db.labels() YIELD label
CALL (label) {
  MATCH (n) WHERE label IN labels(n)
  RETURN count(n) AS nodes
}
RETURN label, nodes
ORDER BY label
