"""Reporters turn a finished report into text for people or data for programs."""
