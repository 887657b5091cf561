// How many artificial entities of a batch are linked to their parent in the graph.
MATCH (:Batch {id: $batch})<-[:IN_BATCH]-(e:Entity:Artificial)
RETURN count(e) AS entities, sum(count { (e)-[:DERIVED_FROM {op: 'parent'}]->(:Entity) }) AS linked
