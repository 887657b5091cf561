// The non-question lines of a benchmark's release files, in file and line order.
MATCH (r:ReleaseRecord {benchmark: $benchmark})
RETURN r.file AS file, r.line AS line, r.record_json AS record_json
ORDER BY file, line
