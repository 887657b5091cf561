// How many facts and entities the graph holds (the count store, no scan): the paged
// source-graph hash checks that its pages met every one of them.
CALL () { MATCH (f:Fact) RETURN count(f) AS facts }
CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
RETURN facts, entities
