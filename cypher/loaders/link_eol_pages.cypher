// EOL pages: a page joined to an NCBI taxon adds its page id; a page without one becomes
// its own taxon entity (eol:<page_id>). Names and aliases from names.dmp are kept.
// $batch.rows: [{id, page_id, name, rank}]
// In one map: one plan whatever the batch's size (see Store.write).
UNWIND $batch.rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.name = row.name, e.alias_text = '', e.source = 'eol'
SET e:Taxon, e.eol_page_id = row.page_id, e.rank = coalesce(e.rank, row.rank),
    e.domain = 'biology', e.stub = false,
    e.name = CASE WHEN e.name = e.id THEN row.name ELSE e.name END
