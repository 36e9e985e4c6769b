"""agentreflex.guard"""
