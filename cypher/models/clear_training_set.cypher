// Forget a model's recorded training set before it is written again (retraining is idempotent).
MATCH (:Model {id: $id})-[r:TRAINED_ON]->(:Fact)
DELETE r
