"""Route groups of the web arena that live in modules of their own, mounted by ``create_app``."""
