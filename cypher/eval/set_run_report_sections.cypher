// The sections a solver added to a run's report (JSON), kept on the Run so that
// `knowforge report RUN` writes them again from the graph alone.
MATCH (r:Run {id: $run_id})
SET r.report_sections_json = $sections_json
