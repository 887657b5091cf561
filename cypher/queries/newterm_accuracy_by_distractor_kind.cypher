// NewTerm: which kinds of related terms fool a model most. For every COMA/COST answer of run
// $run_id, each distractor the question offered (DISTRACTOR edges carry the kind: synonym,
// antonym, partial, spelling; and where it came from: graph, llm, release) and whether the
// answer picked it (its letter is the distractor's position).
MATCH (:Run {id: $run_id})-[:GAVE]->(a:Answer)-[:ANSWERS]->(q:Question)-[d:DISTRACTOR]->()
WITH d.kind AS kind, count(*) AS offered,
     sum(CASE WHEN a.parsed = ['A', 'B', 'C', 'D'][d.position] THEN 1 ELSE 0 END) AS chosen
RETURN kind, offered, chosen, toFloat(chosen) / offered AS fooled_rate
ORDER BY fooled_rate DESC, kind
