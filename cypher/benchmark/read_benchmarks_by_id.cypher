// Which of the listed benchmark ids have a (:Benchmark) node.
UNWIND $ids AS id
MATCH (b:Benchmark {id: id})
RETURN b.id AS id
