"""Text, JSON and Markdown renderers: they render, never compute."""
