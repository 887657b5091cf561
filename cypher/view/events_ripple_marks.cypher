// knowforge view, ELKEN: what the ripple view draws beside the walk of `knowforge ripple`
// (knowforge.kg.ripple.ripple_event, which the view calls): the event, the entities filling its
// slots and, with $run.id (a run recorded with -S ripple_hops=K), the ripple probes that run
// recorded for it (what the model did on each probed fact). No row: no event $key.
// $key: the event id; $run: {id: a run id or null} (a map: one plan whether or not a run is chosen).
MATCH (ev:Event {id: $key})
CALL (ev) {
  OPTIONAL MATCH (ev)-[s:SLOT]->(x:Entity)
  WITH s, x ORDER BY s.name, x.id
  RETURN [y IN collect({id: x.id, name: x.name, slot: s.name}) WHERE y.id IS NOT NULL] AS slots
}
CALL (ev) {
  OPTIONAL MATCH (:Run {id: $run.id})-[:PROBED]->(p:RippleProbe {event_id: ev.id})
  WITH p ORDER BY p.probe, p.id
  RETURN [x IN collect(p {.probe, .subject_id, .outcome, .question, .answer_before, .answer_after})
          WHERE x.probe IS NOT NULL] AS probes
}
RETURN ev.id AS id, ev.text AS text, ev.type AS type, toString(ev.date) AS date, slots, probes
