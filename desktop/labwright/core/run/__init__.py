"""The run: its plan and stages, driven as one generator of events."""
