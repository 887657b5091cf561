// Every lemma's name, for spelling neighbours (edit distance in Python), in id order.
MATCH (l:Lemma)
RETURN l.id AS id, l.name AS name
ORDER BY id
