// knowforge view, NewTerm: a term as one benchmark took it (a TermEntry), its meaning, and its
// related terms (the source of every distractor), each marked by kind (synonym, antonym,
// partial, spelling), drawn solid when thinning kept it and dashed when it was dropped; a
// related term found in the lexical graph (a WordNet lemma) links to its entity page.
// $key: the TermEntry id; $limit: the most related terms. Returns the graph contract {nodes, edges}.
MATCH (e:TermEntry {id: $key})
OPTIONAL MATCH (e)-[:OF_TERM]->(t:Entity)
CALL (e) {
  OPTIONAL MATCH (e)-[r:RELATED]->(n)
  WITH r, n ORDER BY r.rank
  LIMIT $limit
  RETURN [x IN collect({id: 'related:' + toString(r.rank), text: coalesce(r.text, n.name), kind: r.kind,
                        origin: r.origin, via: r.via, kept: r.kept, position: r.position,
                        entity: CASE WHEN n:Entity THEN n.id END}) WHERE x.text IS NOT NULL] AS related
}
RETURN [{id: 'term', label: e.term, kind: 'term', entity: t.id, title: e.category + ', ' + e.benchmark},
        {id: 'meaning', label: e.meaning, kind: 'meaning', title: 'the meaning'}]
       + [x IN related | {id: x.id, label: x.text, kind: coalesce(x.kind, 'related'), entity: x.entity,
                          title: coalesce(x.kind, 'related') + ' from ' + coalesce(x.origin, '?')
                                 + CASE WHEN x.via IS NULL THEN '' ELSE ' via ' + x.via END}] AS nodes,
       [{source: 'term', target: 'meaning', label: 'means', kind: 'means'}]
       + [x IN related | {source: 'term', target: x.id, label: coalesce(x.kind, 'related'),
                          kind: CASE WHEN x.kept OR x.position IS NOT NULL THEN 'kept' ELSE 'thinned' END,
                          title: CASE WHEN x.position IS NOT NULL THEN 'kept, position ' + toString(x.position)
                                      WHEN x.kept THEN 'kept' ELSE 'dropped by thinning' END}] AS edges
