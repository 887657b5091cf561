// Is there a lexical graph? The number of WordNet lemmas (0 before `knowforge load wordnet`).
MATCH (l:Lemma)
RETURN count(l) AS n
