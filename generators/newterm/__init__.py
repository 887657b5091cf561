"""NewTerm (new dictionary terms), built on a lexical graph: see ``method.py`` and docs/newterm.md."""
