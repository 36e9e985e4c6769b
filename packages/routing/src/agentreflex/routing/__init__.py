"""agentreflex.routing"""
