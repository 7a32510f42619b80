"""Registers nothing."""
