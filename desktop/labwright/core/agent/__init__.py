"""The exploration agent: its loop, its five tools, the guards around it and the figure sandbox."""
