"""agentreflex.context_layer"""
