// Drop step 4: phrases no term entry and no question uses any more.
MATCH (p:Phrase)
WHERE NOT EXISTS { (p)<-[:RELATED|DISTRACTOR]-() }
WITH p LIMIT $limit
DETACH DELETE p
RETURN count(*) AS deleted
