// Every index (constraint-backing ones included) with its population state, for
// Store.await_indexes: db.awaitIndexes shows no progress and names no index when one fails.
SHOW INDEXES YIELD name, type, state, populationPercent, labelsOrTypes, properties, failureMessage
RETURN name, type, state, populationPercent AS percent, labelsOrTypes AS labels, properties,
       failureMessage AS failure
ORDER BY name
