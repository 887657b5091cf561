// Bind the later entity: for each bound (earlier) entity in $batch.rows ([{id}]) with a time fact of
// a relation in $second_time (e.g. P570 date of death), the entities with a time fact of a
// relation in $first_time (P575, P571) at least $gap years later. Years are read from the
// facts' ISO-like values ('-0399', '1608', '2011-10-05'). The later side is read once.
// In one map, as Store.write sends a batch: one plan whatever its size.
CALL () {
  MATCH (cf:Fact)
  WHERE cf.relation IN $first_time AND cf.layer = 'source' AND cf.value IS NOT NULL
  MATCH (c:Entity)-[:HAS_FACT]->(cf)
  WHERE NOT c:Artificial
  RETURN collect({id: c.id, name: c.name, sitelinks: c.popularity, fact: cf.id,
                  degree: COUNT { (c)-[:HAS_FACT]->(:Fact {layer: 'source'}) }
                          + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(c) },
                  year: CASE WHEN cf.value STARTS WITH '-' THEN -toInteger(split(substring(cf.value, 1), '-')[0])
                             ELSE toInteger(split(cf.value, '-')[0]) END}) AS later
}
UNWIND $batch.rows AS row
MATCH (s:Entity {id: row.id})-[:HAS_FACT]->(sf:Fact)
WHERE sf.relation IN $second_time AND sf.layer = 'source' AND sf.value IS NOT NULL
WITH row, sf, later, CASE WHEN sf.value STARTS WITH '-' THEN -toInteger(split(substring(sf.value, 1), '-')[0])
                          ELSE toInteger(split(sf.value, '-')[0]) END AS year
UNWIND later AS x
WITH row, sf, x WHERE x.year >= year + $gap
RETURN row.id AS bound, x.id AS id, x.name AS name, x.sitelinks AS sitelinks, x.degree AS degree,
       [x.fact, sf.id] AS facts
ORDER BY bound, id, facts
