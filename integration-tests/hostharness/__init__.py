"""Drive real agent hosts offline against a scripted fake model (see ../README.md)."""
