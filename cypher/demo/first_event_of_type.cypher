// The demo: the first event of a type in a batch (the one whose ripple it prints).
// Parameters: $batch (an event batch name), $type (an event type such as 'win-election')
MATCH (e:Event {batch: $batch, type: $type})
RETURN e.id AS id
ORDER BY e.seq
LIMIT 1
