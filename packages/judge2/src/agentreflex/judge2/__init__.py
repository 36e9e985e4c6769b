"""agentreflex.judge2"""
