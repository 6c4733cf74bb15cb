"""From findings to a PDF: writing, the number check, LaTeX, the offline report, review and export."""
