"""Example Ironside step plugin: interfaces that add deploy steps."""
