"""Rules knowledge base generator: load, validate, resolve, render, write.

`python -m generator --help` lists the commands.
"""
