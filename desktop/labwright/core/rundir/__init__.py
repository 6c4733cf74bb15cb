"""The run directory: the one owner of every file a run leaves."""
