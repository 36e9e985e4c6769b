"""agentreflex.router"""
