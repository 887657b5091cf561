// knowforge view, ELKEN: an event's ripple subgraph. Its slot fillers, the facts it asserted and
// retracted, and the current facts within $hops facts of the entities those edits touch
// (candidates: facts that may change too), walked exactly as `knowforge ripple` walks
// (knowforge.kg.ripple): the first hop follows facts either way, later hops only from subject
// to object; facts the event retracts, facts other events asserted and relations in $ignored
// (kg/ripple.yaml) are not walked. Each fact once, at its smallest depth; at most $limit
// candidates. With $run (a run recorded with -S ripple_hops=K) a probed fact and the entities
// asked about are marked by what the model did: moved, missed (should move, stayed),
// collateral (should stay, moved), kept.
// $key: the event id; $hops: 1 to 3; $run: a run id or null. Returns {nodes, edges}.
MATCH (ev:Event {id: $key})
CALL (ev) {
  OPTIONAL MATCH (ev)-[r:ASSERTS|RETRACTS]->(f:Fact)
  WITH r, f ORDER BY type(r), f.id
  RETURN [x IN collect({fact: f, change: CASE type(r) WHEN 'ASSERTS' THEN 'asserted' ELSE 'retracted' END})
          WHERE x.fact IS NOT NULL] AS edited
}
CALL (ev) {
  OPTIONAL MATCH (ev)-[s:SLOT]->(x:Entity)
  WITH s, x ORDER BY s.name
  RETURN [y IN collect({id: x.id, name: x.name, slot: s.name}) WHERE y.id IS NOT NULL] AS slots
}
CALL (ev) {
  OPTIONAL MATCH (:Run {id: $run})-[:PROBED]->(p:RippleProbe {event_id: ev.id})
  WITH p ORDER BY p.probe
  RETURN [x IN collect(p {.probe, .subject_id, .outcome, .question, .answer_before, .answer_after})
          WHERE x.probe IS NOT NULL] AS probes
}
WITH ev, edited, slots, probes,
     [e IN edited | e.fact.subject_id] + [e IN edited WHERE e.fact.object_id IS NOT NULL | e.fact.object_id] AS starts
CALL (ev, starts) {
  UNWIND starts AS start_id
  MATCH (s:Entity {id: start_id})
  CALL (ev, s) {
    MATCH (s) ((:Entity)-[:HAS_FACT]->(g:Fact)-[:OBJECT]->(:Entity)
               WHERE g.end_year IS NULL AND coalesce(g.layer, 'source') <> 'edit' AND NOT g.relation IN $ignored){0,2}
          (:Entity)-[:HAS_FACT]->(f:Fact)
    WHERE size(g) < $hops AND all(x IN g WHERE NOT EXISTS { (ev)-[:RETRACTS]->(x) })
    RETURN f, size(g) + 1 AS depth
    UNION
    MATCH (s)<-[:OBJECT]-(f:Fact)
    RETURN f, 1 AS depth
  }
  WITH ev, f, depth
  WHERE f.end_year IS NULL
    AND NOT f.relation IN $ignored
    AND NOT EXISTS { (ev)-[:ASSERTS|RETRACTS]->(f) }
    AND coalesce(f.layer, 'source') <> 'edit'
  WITH f, min(depth) AS depth
  ORDER BY depth, f.id
  LIMIT $limit
  RETURN collect({fact: f, change: 'candidate', depth: depth}) AS candidates
}
CALL (edited, candidates, probes) {
  UNWIND edited + candidates AS x
  WITH x, x.fact AS f, probes
  OPTIONAL MATCH (subject:Entity {id: f.subject_id})
  OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
  WITH x, f, subject, o, head([p IN probes WHERE p.probe = f.id]) AS probe
  RETURN collect({id: f.id, change: x.change, depth: coalesce(x.depth, 0), subject_id: f.subject_id,
                  subject: coalesce(subject.name, f.subject_id), object_id: o.id,
                  object: CASE WHEN f.unknown THEN 'unknown' ELSE coalesce(o.name, toString(f.value)) END,
                  relation: coalesce(f.relation_label, f.relation), probe: probe}) AS facts
}
WITH ev, slots, probes, facts,
     [x IN facts WHERE size([p IN probes WHERE p.subject_id = x.subject_id]) > 0 | x.subject_id] AS asked
WITH ev, slots, probes, facts,
     [id IN reduce(acc = [], i IN asked | CASE WHEN i IN acc THEN acc ELSE acc + [i] END) |
      {id: id, outcomes: [p IN probes WHERE p.subject_id = id | p.outcome]}] AS marked
RETURN [{id: 'event:' + ev.id, label: ev.text, kind: 'event', title: ev.type + ' on ' + toString(ev.date)}]
       + [m IN marked | {id: m.id, label: head([x IN facts WHERE x.subject_id = m.id | x.subject]), entity: m.id,
                         kind: CASE WHEN 'collateral' IN m.outcomes THEN 'collateral'
                                    WHEN 'missed' IN m.outcomes THEN 'missed'
                                    WHEN 'moved' IN m.outcomes THEN 'moved' ELSE 'kept' END,
                         title: toString(size(m.outcomes)) + ' probe(s): '
                                + reduce(t = '', o IN ['moved', 'missed', 'collateral', 'kept'] |
                                         t + toString(size([y IN m.outcomes WHERE y = o])) + ' ' + o + ' ')}]
       + [s IN slots | {id: s.id, label: s.name, kind: 'slot', entity: s.id, title: 'slot ' + s.slot}]
       + [x IN facts | {id: x.subject_id, label: x.subject, kind: 'entity', entity: x.subject_id}]
       + [x IN facts WHERE x.object_id IS NOT NULL | {id: x.object_id, label: x.object, kind: 'entity',
                                                     entity: x.object_id}]
       + [x IN facts WHERE x.object_id IS NULL | {id: 'value:' + x.id, label: x.object, kind: 'value'}] AS nodes,
       [s IN slots | {source: 'event:' + ev.id, target: s.id, label: s.slot, kind: 'slot'}]
       + [x IN facts | {source: x.subject_id, target: coalesce(x.object_id, 'value:' + x.id), label: x.relation,
                        kind: coalesce(x.probe.outcome, x.change),
                        title: x.change + CASE WHEN x.depth > 0 THEN ', ' + toString(x.depth) + ' hop(s) away'
                                               ELSE '' END
                               + CASE WHEN x.probe IS NULL THEN ''
                                      ELSE '; ' + x.probe.outcome + ': ' + x.probe.question + ' '
                                           + coalesce(x.probe.answer_before, '-') + ' → '
                                           + coalesce(x.probe.answer_after, '-') END}] AS edges
