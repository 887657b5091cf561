"""The plug-in's named Cypher: ``x.cypher`` here is the statement ``"birthyear/x"``."""
