// knowforge view: one sample of a run (its Answer, by id '<run>:<question>:<sample>') and the
// question it answers, as [key, value] pairs without the stored item JSON.
MATCH (:Run {id: $run_id})-[:GAVE]->(a:Answer {id: $answer_id})-[:ANSWERS]->(q:Question)
RETURN properties(a) AS answer, [k IN keys(q) WHERE k <> 'item_json' | [k, q[k]]] AS question
