"""Rules knowledge base generator: load, validate, resolve, render, write.

Each stage is a package, in the order they run (base/ is what they all share; tools/ runs beside
them); the top-level modules run the pipeline (pipeline.py) and its commands. A module imports only
its own stage or earlier ones (tests/test_architecture.py). `python -m generator --help` lists the
commands.
"""
