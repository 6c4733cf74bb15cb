"""The configuration: run settings, saved settings and keys, their resolution, and cost."""
