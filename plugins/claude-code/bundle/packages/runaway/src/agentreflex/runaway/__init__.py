"""agentreflex.runaway"""
