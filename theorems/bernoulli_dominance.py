"""Claims module (under construction)."""
