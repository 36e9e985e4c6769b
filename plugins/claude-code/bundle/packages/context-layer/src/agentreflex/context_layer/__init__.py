"""agentreflex.context_layer — what the agent sees.

A session recap re-injected where agents forget (after a compaction, on a
new prompt when it changed), a saver that shortens long tool outputs to the
lines that matter and keeps the whole copy on disk, and a pruning function
for hosts that hand their context to an extension (pi / omp).  See README.md.
"""
