// knowforge view: one run's properties and how many answers it gave (a degree count, cheap
// however large the run). Also the baseline of benchmarks/view_first_page.py.
MATCH (r:Run {id: $run_id})
RETURN properties(r) AS run, COUNT { (r)-[:GAVE]->() } AS answers
