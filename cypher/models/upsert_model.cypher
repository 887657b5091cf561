// A control model: what it is (cutoff, seed, config hash, where its weights are).
MERGE (m:Model {id: $id})
SET m += $props
