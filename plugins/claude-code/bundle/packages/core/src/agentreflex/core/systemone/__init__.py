"""System One: the judge's wire types, canonical question ids and the heuristic engine."""
