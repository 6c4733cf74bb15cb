"""The picked folder, read without a model: the path fence, the scan, readers, tables and evidence."""
