"""Ops: one registry (`registry.py`), family files (math, manipulation, creation, logic, ...)."""
