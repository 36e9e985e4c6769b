"""``agentreflex report``: one static HTML file of what the reflexes saw and decided."""
