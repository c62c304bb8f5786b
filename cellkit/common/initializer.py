"""TEMPORARY -- to be replaced wholesale by the initializer work."""
