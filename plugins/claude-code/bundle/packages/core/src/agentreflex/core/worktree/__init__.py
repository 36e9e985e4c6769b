"""The work tree as ground truth: what a tool call changed, snapshots, undo.

``safegit`` runs git without executing anything the repository configures,
``observe`` fingerprints the work tree and diffs two fingerprints,
``snapshot`` saves and restores the uncommitted state in a private object
store, and ``hook`` wires both into the hook pipeline.
"""
