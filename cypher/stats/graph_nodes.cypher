// Every node with its labels and properties, in id order (graph digests and comparisons).
MATCH (n)
RETURN n.id AS id, labels(n) AS labels, properties(n) AS props
ORDER BY id
