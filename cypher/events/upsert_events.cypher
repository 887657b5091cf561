// Layer events: the :Event node and its [:SLOT {name}] edges to the filler entities.
// $batch.rows: [{id, props:{type, date, year, batch, seed, text, seq, applied, template}, slots:[{name, id}]}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:Event {id: row.id})
SET e += row.props
WITH e, row
CALL (e, row) {
  UNWIND row.slots AS slot
  MATCH (x:Entity {id: slot.id})
  MERGE (e)-[:SLOT {name: slot.name}]->(x)
}
