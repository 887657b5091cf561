// The rule chains: (conclusion)-[:DERIVED_FROM {role, predicate, rule, batch}]->(premise fact).
// role: 'premise' (a source fact, or a premise a model proposed), 'assumption' (the statement's
// own premise) or 'chain' (the conclusion of an earlier rule, --chain-depth).
// $batch.rows: [{from, to, role, predicate}]; both ends exist (conclusions and premises are written first).
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MATCH (c:Fact {id: row.from})
MATCH (p:Fact {id: row.to})
MERGE (c)-[d:DERIVED_FROM {role: row.role, predicate: row.predicate}]->(p)
SET d.batch = $batch_id, d.benchmark = $benchmark
