// Questions from benchmark items (MERGE by id; slices kept as slice_<key> properties).
UNWIND $rows AS row
MERGE (q:Question {id: row.id})
SET q += row.props
