// What an event asserted and retracted: [{change: 'asserted'|'retracted', fact_id}].
MATCH (e:Event {id: $event_id})-[r:ASSERTS|RETRACTS]->(f:Fact)
RETURN CASE type(r) WHEN 'ASSERTS' THEN 'asserted' ELSE 'retracted' END AS change, f.id AS fact_id
ORDER BY change, fact_id
