// knowforge graph schema. Applied by `knowforge init`; every statement is idempotent.
// The model (see README "Graph schema"):
//   (:Entity {id})-[:HAS_FACT]->(:Fact {id, relation, ...})-[:OBJECT]->(:Entity)
// Facts are nodes so that questions, edits and answers can point at them.

// ---- full-text first ----
// Index creation returns at once and the server populates in the background; on a graph that
// already holds nodes (after `knowforge neo4j import`) this index takes longest to fill, so it
// is created first to start earliest.
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.alias_text];

// ---- identity ----
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE;
CREATE CONSTRAINT relation_id IF NOT EXISTS FOR (r:Relation) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT batch_id IF NOT EXISTS FOR (b:Batch) REQUIRE b.id IS UNIQUE;
CREATE CONSTRAINT event_id IF NOT EXISTS FOR (e:Event) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT benchmark_id IF NOT EXISTS FOR (b:Benchmark) REQUIRE b.id IS UNIQUE;
CREATE CONSTRAINT question_id IF NOT EXISTS FOR (q:Question) REQUIRE q.id IS UNIQUE;
CREATE CONSTRAINT chrono_record_id IF NOT EXISTS FOR (r:ChronoRecord) REQUIRE r.id IS UNIQUE;
CREATE INDEX chrono_record_benchmark IF NOT EXISTS FOR (r:ChronoRecord) ON (r.benchmark);
CREATE CONSTRAINT run_id IF NOT EXISTS FOR (r:Run) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT answer_id IF NOT EXISTS FOR (a:Answer) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT ripple_probe_id IF NOT EXISTS FOR (p:RippleProbe) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT model_id IF NOT EXISTS FOR (m:Model) REQUIRE m.id IS UNIQUE;
// NewTerm: a benchmark's terms, their related terms (phrases that are not lemmas), the lines of
// its release files that are not questions, and the run that generated it
CREATE CONSTRAINT term_entry_id IF NOT EXISTS FOR (e:TermEntry) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT phrase_id IF NOT EXISTS FOR (p:Phrase) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT release_record_id IF NOT EXISTS FOR (r:ReleaseRecord) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT generation_run_id IF NOT EXISTS FOR (g:GenerationRun) REQUIRE g.id IS UNIQUE;
CREATE INDEX release_record_benchmark IF NOT EXISTS FOR (r:ReleaseRecord) ON (r.benchmark);

// ---- temporal and lookup indexes ----
// "the object timeline of (s, r)" is one lookup on (subject_id, relation)
CREATE INDEX fact_subject_relation IF NOT EXISTS FOR (f:Fact) ON (f.subject_id, f.relation);
// "what was true in year t" for a relation
CREATE INDEX fact_relation_years IF NOT EXISTS FOR (f:Fact) ON (f.relation, f.start_year, f.end_year);
CREATE INDEX fact_object IF NOT EXISTS FOR (f:Fact) ON (f.object_id);
CREATE INDEX fact_source IF NOT EXISTS FOR (f:Fact) ON (f.source);
CREATE INDEX fact_layer IF NOT EXISTS FOR (f:Fact) ON (f.layer);
CREATE INDEX fact_batch IF NOT EXISTS FOR (f:Fact) ON (f.batch);
CREATE INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON (e.name);
CREATE INDEX entity_domain IF NOT EXISTS FOR (e:Entity) ON (e.domain);
CREATE INDEX entity_popularity IF NOT EXISTS FOR (e:Entity) ON (e.popularity);
CREATE INDEX entity_batch IF NOT EXISTS FOR (e:Entity) ON (e.batch);
CREATE INDEX question_benchmark IF NOT EXISTS FOR (q:Question) ON (q.benchmark);
