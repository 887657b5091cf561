// One model node with the size of its recorded training set.
MATCH (m:Model {id: $id})
OPTIONAL MATCH (m)-[t:TRAINED_ON]->(:Fact)
RETURN properties(m) AS model, count(t) AS trained_on
