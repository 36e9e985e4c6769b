"""The shell model: from a command line to the simple commands bash would run.

Parsing (tree-sitter bash), word expansion, braces, wrappers, pipes, fan-out
(xargs, find, parallel) and the walk that follows commands into the code they
run.  No rule lives here: the model only says what would execute, and where.
"""
