// One ChroKnow benchmark node. $id: 'chrono:<name>', $props: {name, method, domain, ...}
MERGE (b:Benchmark {id: $id})
SET b += $props
