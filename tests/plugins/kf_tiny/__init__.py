"""A third-party method, as another package would write one: its graph side (``method.py``,
where ``generators/<m>/`` would hold it) and its evaluation side (``evaluation.py``, where
``eval/<m>/`` would), published by one entry point. tests/test_method_seam.py installs it and
runs everything through the CLI with no edit to knowforge."""
