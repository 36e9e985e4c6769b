"""agentreflex.laya"""
