"""A third-party method, as another package would write one: questions on people's birth years,
drawn from the graph through its own named Cypher. Its graph side is ``method.py`` (where
``generators/<m>/`` would hold it), its evaluation side ``evaluation.py`` (where ``eval/<m>/``
would), published by one entry point. tests/test_method_seam.py installs it and runs everything
through the CLI with no edit to knowforge."""
