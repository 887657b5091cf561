// Which of $batch.ids are facts already in the graph, with the subject and object they point at
// (ids only go over the wire: cheap when most facts are new, as in a first load).
// In one map, as Store.write sends a batch: one plan whatever its size.
UNWIND $batch.ids AS id
MATCH (f:Fact {id: id})
RETURN f.id AS id, f.subject_id AS subject_id, f.object_id AS object_id
