"""agentreflex.core"""
