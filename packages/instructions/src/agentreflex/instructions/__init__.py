"""agentreflex.instructions"""
