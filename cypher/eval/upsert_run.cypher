// One evaluation run: model, backend, decoding parameters, seed, template and code versions.
MERGE (r:Run {id: $id})
SET r += $props
