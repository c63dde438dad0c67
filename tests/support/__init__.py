"""Test helpers shared by the suites: paths, settings, the real servers and the stubs."""
