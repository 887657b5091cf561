"""The plug-in's named Cypher: ``x.cypher`` here is the statement ``"tiny/x"``."""
