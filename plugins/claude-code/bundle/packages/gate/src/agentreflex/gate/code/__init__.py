"""Code a command runs that is not shell: interpreter one-liners and local files.

Each effect found in the code is turned back into the shell command it amounts
to, so the ordinary rules judge it.
"""
