// NewTerm: the related terms of a term in benchmark $benchmark (e.g. 'newterm:2024', term
// $term), in pool order: kind, where each came from (the lexical graph through which WordNet
// relation, or an LLM), and whether thinning kept it (position among the five kept).
MATCH (e:TermEntry {benchmark: $benchmark, term: $term})-[r:RELATED]->(n)
RETURN e.meaning AS meaning, r.rank AS rank, r.text AS related, r.kind AS kind, r.origin AS origin,
       r.via AS via, r.kept AS kept, r.position AS position, labels(n) AS node
ORDER BY rank
