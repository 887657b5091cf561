// Which of $ids (wn:lemma:<key>) are lemmas in the graph.
UNWIND $ids AS id
MATCH (l:Entity {id: id})
WHERE l:Lemma
RETURN l.id AS id
ORDER BY id
