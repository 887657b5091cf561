// After an imported release is dropped: the stubs its import created that nothing points at
// any more (a stub a later load completed, or another import still uses, stays).
MATCH (e:Entity {source: 'elken-release'})
WHERE e.stub = true AND NOT EXISTS { (e)--() }
DETACH DELETE e
