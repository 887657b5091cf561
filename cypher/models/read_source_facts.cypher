// Every source-layer fact with its subject's and object's names: what a control model can be
// trained on (models/control_data.py decides, by cutoff and a seeded hold-out, what it sees).
// Generated and edited facts (layer 'generated' / 'edit') are never read here.
MATCH (s:Entity)-[:HAS_FACT]->(f:Fact {layer: 'source'})
OPTIONAL MATCH (f)-[:OBJECT]->(o:Entity)
RETURN f.id AS id, s.id AS subject_id, coalesce(s.name, s.id) AS subject, f.relation AS relation,
       coalesce(f.relation_label, f.relation) AS label, f.kind AS kind,
       coalesce(o.name, f.value) AS object, f.object_id AS object_id, f.unit AS unit,
       f.start_year AS start_year, f.end_year AS end_year, f.seen_in AS seen_in,
       coalesce(f.temporal, false) AS temporal, f.source AS source
ORDER BY f.id
