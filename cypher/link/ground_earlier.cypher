// The inverse of ground_later: for each bound (later) entity in $batch.rows ([{id}]) with a time fact
// of a relation in $first_time, the entities whose time fact of a relation in $second_time is
// at least $gap years earlier. The earlier side is read once.
// In one map, as Store.write sends a batch: one plan whatever its size.
CALL () {
  MATCH (cf:Fact)
  WHERE cf.relation IN $second_time AND cf.layer = 'source' AND cf.value IS NOT NULL
  MATCH (c:Entity)-[:HAS_FACT]->(cf)
  WHERE NOT c:Artificial
  RETURN collect({id: c.id, name: c.name, sitelinks: c.popularity, fact: cf.id,
                  degree: COUNT { (c)-[:HAS_FACT]->(:Fact {layer: 'source'}) }
                          + COUNT { (:Fact {layer: 'source'})-[:OBJECT]->(c) },
                  year: CASE WHEN cf.value STARTS WITH '-' THEN -toInteger(split(substring(cf.value, 1), '-')[0])
                             ELSE toInteger(split(cf.value, '-')[0]) END}) AS earlier
}
UNWIND $batch.rows AS row
MATCH (s:Entity {id: row.id})-[:HAS_FACT]->(sf:Fact)
WHERE sf.relation IN $first_time AND sf.layer = 'source' AND sf.value IS NOT NULL
WITH row, sf, earlier, CASE WHEN sf.value STARTS WITH '-' THEN -toInteger(split(substring(sf.value, 1), '-')[0])
                            ELSE toInteger(split(sf.value, '-')[0]) END AS year
UNWIND earlier AS x
WITH row, sf, x WHERE x.year + $gap <= year
RETURN row.id AS bound, x.id AS id, x.name AS name, x.sitelinks AS sitelinks, x.degree AS degree,
       [sf.id, x.fact] AS facts
ORDER BY bound, id, facts
