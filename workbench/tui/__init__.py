"""The Textual front-end. The only package in workbench that imports Textual."""
