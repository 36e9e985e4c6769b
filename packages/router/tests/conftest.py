"""Puts the scripted upstreams (``router_upstreams``, ``router_world``) on the import path."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
