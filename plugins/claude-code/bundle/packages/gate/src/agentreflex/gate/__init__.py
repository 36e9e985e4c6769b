"""agentreflex.gate"""
